import Foundation
import GRDB
import PeerScanCore
import PeerScanModel

extension RegistryDatabase {
    /// The Wi-Fi networks stored: their ids, and per SSID its securities and BSSIDs.
    ///
    /// - Throws: ``RegistryError/unreadable(path:reason:)`` if they cannot be read, or a row holds a security this
    ///   version does not know.
    func loadKnownNetworks() throws(RegistryError) -> KnownNetworks {
        do {
            return try queue.read { db in
                var known = KnownNetworks()
                var networks: [String: (ssid: String?, security: WiFiSecurity)] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT id, ssid, security FROM wifi_network") {
                    let text: String = row["id"]
                    let securityText: String = row["security"]
                    guard let id = DeviceID(text: text), let security = WiFiSecurity(rawValue: securityText) else {
                        throw RegistryError.unreadable(path: path, reason: "wifi_network row \(text): \(securityText)")
                    }
                    known.networkIDs.insert(id)
                    let ssid: String? = row["ssid"]
                    networks[text] = (ssid, security)
                    if let ssid { known.securitiesBySSID[ssid, default: []].insert(security) }
                }
                for row in try Row.fetchAll(db, sql: "SELECT network_id, bssid FROM wifi_access_point") {
                    let network: String = row["network_id"]
                    guard let ssid = networks[network]?.ssid else { continue }
                    known.bssidsBySSID[ssid, default: []].insert(row["bssid"])
                }
                return known
            }
        } catch let error as RegistryError {
            throw error
        } catch {
            throw .unreadable(path: path, reason: "\(error)")
        }
    }

    /// Stores Wi-Fi sightings in one transaction: each network and access point inserted, or its last-seen time
    /// moved forward.
    ///
    /// - Complexity: O(s) rows for s sightings.
    func writeNetworks(_ sightings: [WirelessRecords.Sighting: SeenSpan]) async throws(RegistryError) {
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
            }
        } catch {
            throw .writeFailed(path: path, reason: "\(error)")
        }
    }
}
