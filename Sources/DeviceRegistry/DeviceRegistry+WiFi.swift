import Foundation
import MonitoringLog
import PeerScanCore
import PeerScanModel

/// What the store taught about Wi-Fi networks and is not written yet.
struct PendingNetworks: Sendable {
    /// Whether sightings are written (`--forget-after` is not zero: with zero nothing heard is remembered, only the
    /// baseline).
    let keepsSightings: Bool
    /// The sightings, with when each was first and last heard since the last write.
    var sightings: [WirelessRecords.Sighting: SeenSpan] = [:]
    /// The baseline's changes (`nil`: a network no longer known), the last one of each network.
    var known: [DeviceID: KnownWiFiNetwork?] = [:]

    init(keepsSightings: Bool) { self.keepsSightings = keepsSightings }

    var isEmpty: Bool { sightings.isEmpty && known.isEmpty }
}

extension DeviceRegistry {
    /// Takes in the Wi-Fi networks and access points a batch of the store heard, and the baseline's changes (memory
    /// only: the next ``flush(now:refreshingAll:)`` writes them).
    ///
    /// - Complexity: O(s + k) for s sightings and k baseline changes.
    public func record(_ records: WirelessRecords, at date: Date = Date()) {
        guard path != nil else { return }  // in memory only: the store's table knows what it heard since start
        pendingNetworks.withLockedValue { pending in
            if pending.keepsSightings {
                for sighting in records.sightings {
                    pending.sightings[sighting] = SeenSpan(
                        first: pending.sightings[sighting]?.first ?? date,
                        last: date
                    )
                }
            }
            pending.known.merge(records.known) { _, newer in newer }
        }
    }

    /// Forgets the Wi-Fi networks and access points not heard for `forgetAfter`, then those beyond `limit`'s heard
    /// most recently (``NetworkRowLimit``), except the baseline's: the networks this host connected to or a person
    /// marked known, and their access points vouched for. With `forgetAfter` zero, every other one goes. Both rules
    /// are one write transaction.
    ///
    /// - Parameters:
    ///   - forgetAfter: How long a network or access point not heard is remembered (`--forget-after`).
    ///   - limit: The most networks and access points kept besides the baseline; `nil`: no limit.
    ///   - now: The current time.
    /// - Returns: How many networks and access points (of networks that stay) were forgotten, by either rule (0 in
    ///   memory only, or when the delete failed: logged, and tried again next time).
    @discardableResult
    public func forgetNetworks(
        forgetAfter: Duration,
        limit: NetworkRowLimit?,
        now: Date = Date()
    ) async -> (networks: Int, bssids: Int) {
        guard let database else { return (0, 0) }
        do {
            let (expired, trimmed) = try await database.forgetNetworks(
                seenBefore: Self.horizon(forgetAfter: forgetAfter, now: now),
                limit: limit
            )
            let forgotten = (networks: expired.networks + trimmed.networks, bssids: expired.bssids + trimmed.bssids)
            if forgotten != (0, 0) {
                logger.log(
                    .registryForgettingNetworks,
                    [
                        "networks": "\(forgotten.networks)", "bssids": "\(forgotten.bssids)",
                        "networks.trimmed": "\(trimmed.networks)", "bssids.trimmed": "\(trimmed.bssids)",
                    ]
                )
            }
            return forgotten
        } catch {
            logger.log(.registryWriteFailed, ["error": "\(error)", "devices.pending": "0"])
            return (0, 0)
        }
    }

    /// How many Wi-Fi networks and access points the registry's tables hold, the baseline's included (0 in memory
    /// only).
    ///
    /// - Throws: ``RegistryError/unreadable(path:reason:)`` if the tables cannot be read.
    /// - Complexity: O(r) for the r rows.
    public func networkRowCounts() async throws(RegistryError) -> (networks: Int, accessPoints: Int) {
        guard let database else { return (0, 0) }
        return try await database.countNetworkRows()
    }

    /// Writes the Wi-Fi sightings and baseline changes taken in since the last flush; on failure, keeps them for the
    /// next one.
    ///
    /// - Returns: Whether they are on disk now.
    func flushNetworks() async -> Bool {
        let taken = pendingNetworks.withLockedValue { pending in
            defer {
                pending.sightings = [:]
                pending.known = [:]
            }
            return pending
        }
        guard let database, !taken.isEmpty else { return true }
        do {
            try await database.writeNetworks(taken.sightings, known: taken.known)
            return true
        } catch {
            pendingNetworks.withLockedValue { pending in
                pending.sightings.merge(taken.sightings) { newer, older in
                    SeenSpan(first: older.first, last: newer.last)
                }
                pending.known.merge(taken.known) { newer, _ in newer }
            }
            // Retried every flush; the device writes, on the same disk, say it at most once a minute too.
            logger.log(.registryWriteFailed, ["error": "\(error)", "devices.pending": "0"])
            return false
        }
    }
}
