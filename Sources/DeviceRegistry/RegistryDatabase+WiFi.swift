import Foundation
import GRDB
import PeerScanCore
import PeerScanModel

// The Wi-Fi tables: `wifi_network` (one row per SSID and security, or hidden BSSID) and `wifi_access_point` (its
// BSSIDs), each with when it was first and last heard. Migration `wifi-baseline` marks the evil-twin baseline in them:
// `wifi_network.connected` (this host connected to it), `wifi_network.trusted` (a person marked it known) and
// `wifi_access_point.vouched` (an access point this host connected to, or heard when the person marked it). A
// registry from before starts with an empty baseline: what it held was learnt from first sightings, which a
// passer-by could set.

extension RegistryDatabase {
    /// Adds the baseline's columns (migration `wifi-baseline`).
    static func registerWiFiBaseline(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("wifi-baseline") { db in
            try db.execute(
                sql: """
                    ALTER TABLE wifi_network ADD COLUMN connected INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE wifi_network ADD COLUMN trusted INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE wifi_access_point ADD COLUMN vouched INTEGER NOT NULL DEFAULT 0;
                    CREATE INDEX wifi_network_last_seen ON wifi_network(last_seen);
                    CREATE INDEX wifi_access_point_last_seen ON wifi_access_point(last_seen);
                    """
            )
        }
    }

    /// The evil-twin baseline stored: the networks connected to or trusted, with their access points vouched for.
    ///
    /// - Throws: ``RegistryError/unreadable(path:reason:)`` if it cannot be read, or a row holds a security this
    ///   version does not know.
    /// - Complexity: O(k) rows for k networks and access points of the baseline (the others are not read).
    func loadKnownNetworks() throws(RegistryError) -> KnownNetworks {
        do {
            return try queue.read { db in
                var networks: [String: KnownWiFiNetwork] = [:]
                let rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT id, ssid, security, connected, trusted FROM wifi_network
                        WHERE (connected OR trusted) AND ssid IS NOT NULL
                        """
                )
                for row in rows {
                    let text: String = row["id"]
                    let securityText: String = row["security"]
                    guard let id = DeviceID(text: text), let security = WiFiSecurity(rawValue: securityText) else {
                        throw RegistryError.unreadable(path: path, reason: "wifi_network row \(text): \(securityText)")
                    }
                    networks[text] = KnownWiFiNetwork(
                        id: id,
                        ssid: row["ssid"],
                        security: security,
                        bssids: [],
                        isConnected: row["connected"],
                        isTrusted: row["trusted"]
                    )
                }
                let points = try Row.fetchAll(db, sql: "SELECT network_id, bssid FROM wifi_access_point WHERE vouched")
                for row in points {
                    networks[row["network_id"] as String]?.bssids.insert(row["bssid"])
                }
                return KnownNetworks(Array(networks.values))
            }
        } catch let error as RegistryError {
            throw error
        } catch {
            throw .unreadable(path: path, reason: "\(error)")
        }
    }

    /// Stores Wi-Fi sightings and baseline changes in one transaction: each network and access point inserted, or its
    /// last-seen time moved forward; then each baseline change (a network known now, with its access points vouched
    /// for, or no longer known).
    ///
    /// - Complexity: O(s + k) rows for s sightings and k access points of the baseline changes.
    func writeNetworks(
        _ sightings: [WirelessRecords.Sighting: SeenSpan],
        known: [DeviceID: KnownWiFiNetwork?] = [:]
    ) async throws(RegistryError) {
        let now = Date().timeIntervalSince1970
        do {
            try await queue.write { db in
                for (sighting, span) in sightings {
                    let first = span.first.timeIntervalSince1970
                    let last = span.last.timeIntervalSince1970
                    try db.execute(
                        sql: """
                            INSERT INTO wifi_network (id, ssid, security, first_seen, last_seen) VALUES (?, ?, ?, ?, ?)
                            ON CONFLICT(id) DO UPDATE SET last_seen = max(last_seen, excluded.last_seen)
                            """,
                        arguments: [
                            sighting.network.description, sighting.ssid, sighting.security.rawValue, first, last,
                        ]
                    )
                    try db.execute(
                        sql: """
                            INSERT INTO wifi_access_point (network_id, bssid, first_seen, last_seen) VALUES (?, ?, ?, ?)
                            ON CONFLICT(network_id, bssid) DO UPDATE SET last_seen = max(last_seen, excluded.last_seen)
                            """,
                        arguments: [sighting.network.description, sighting.bssid, first, last]
                    )
                }
                for (id, network) in known {
                    try db.execute(
                        sql: "UPDATE wifi_access_point SET vouched = 0 WHERE network_id = ?",
                        arguments: [id.description]
                    )
                    guard let network else {
                        try db.execute(
                            sql: "UPDATE wifi_network SET connected = 0, trusted = 0 WHERE id = ?",
                            arguments: [id.description]
                        )
                        continue
                    }
                    try db.execute(
                        sql: """
                            INSERT INTO wifi_network (id, ssid, security, first_seen, last_seen, connected, trusted)
                            VALUES (?, ?, ?, ?, ?, ?, ?)
                            ON CONFLICT(id) DO UPDATE SET connected = excluded.connected, trusted = excluded.trusted
                            """,
                        arguments: [
                            id.description, network.ssid, network.security.rawValue, now, now, network.isConnected,
                            network.isTrusted,
                        ]
                    )
                    for bssid in network.bssids.sorted() {
                        try db.execute(
                            sql: """
                                INSERT INTO wifi_access_point (network_id, bssid, first_seen, last_seen, vouched)
                                VALUES (?, ?, ?, ?, 1)
                                ON CONFLICT(network_id, bssid) DO UPDATE SET vouched = 1
                                """,
                            arguments: [id.description, bssid, now, now]
                        )
                    }
                }
            }
        } catch {
            throw .writeFailed(path: path, reason: "\(error)")
        }
    }

    /// Deletes, in one transaction, the networks and access points last heard at or before `horizon`, then (with a
    /// `limit`) the networks beyond the `limit.networks` heard most recently and the access points beyond the
    /// `limit.accessPoints` heard most recently; the baseline's are never deleted (nor counted against the limit). The
    /// access points of a network deleted go with it (`ON DELETE CASCADE`).
    ///
    /// - Parameters:
    ///   - horizon: The rows last heard at or before it are deleted.
    ///   - limit: The most networks and access points kept besides the baseline; `nil`: no limit.
    /// - Returns: How many networks and access points (of networks that stay) were deleted for being old
    ///   (`expired`) and for the limit (`trimmed`).
    /// - Complexity: O(d log r) for d rows deleted among r for the horizon (the `last_seen` indexes), plus
    ///   O(r log r) for the limit (a walk of the `last_seen` indexes, newest first).
    func forgetNetworks(
        seenBefore horizon: Date,
        limit: NetworkRowLimit?
    ) async throws(RegistryError) -> (expired: (networks: Int, bssids: Int), trimmed: (networks: Int, bssids: Int)) {
        let time = horizon.timeIntervalSince1970
        do {
            return try await queue.write { db in
                try db.execute(
                    sql: "DELETE FROM wifi_network WHERE last_seen <= ? AND NOT connected AND NOT trusted",
                    arguments: [time]
                )
                let expiredNetworks = db.changesCount
                try db.execute(
                    sql: "DELETE FROM wifi_access_point WHERE last_seen <= ? AND NOT vouched",
                    arguments: [time]
                )
                let expired = (networks: expiredNetworks, bssids: db.changesCount)
                guard let limit else { return (expired, (0, 0)) }
                try db.execute(
                    sql: """
                        DELETE FROM wifi_network WHERE id IN (
                            SELECT id FROM wifi_network WHERE NOT connected AND NOT trusted
                            ORDER BY last_seen DESC LIMIT -1 OFFSET ?)
                        """,
                    arguments: [limit.networks]
                )
                let trimmedNetworks = db.changesCount
                try db.execute(
                    sql: """
                        DELETE FROM wifi_access_point WHERE (network_id, bssid) IN (
                            SELECT network_id, bssid FROM wifi_access_point WHERE NOT vouched
                            ORDER BY last_seen DESC LIMIT -1 OFFSET ?)
                        """,
                    arguments: [limit.accessPoints]
                )
                return (expired, (trimmedNetworks, db.changesCount))
            }
        } catch {
            throw .writeFailed(path: path, reason: "\(error)")
        }
    }

    /// How many networks and access points the tables hold, the baseline's included.
    ///
    /// - Complexity: O(r) for the r rows.
    func countNetworkRows() async throws(RegistryError) -> (networks: Int, accessPoints: Int) {
        do {
            return try await queue.read { db in
                let networks = try Int.fetchOne(db, sql: "SELECT count(*) FROM wifi_network") ?? 0
                let accessPoints = try Int.fetchOne(db, sql: "SELECT count(*) FROM wifi_access_point") ?? 0
                return (networks, accessPoints)
            }
        } catch {
            throw .unreadable(path: path, reason: "\(error)")
        }
    }
}
