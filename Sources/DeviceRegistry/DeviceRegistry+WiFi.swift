import Foundation
import MonitoringLog
import PeerScanCore

extension DeviceRegistry {
    /// Takes in the Wi-Fi networks and access points a batch of the store heard (memory only: the next
    /// ``flush(now:refreshingAll:)`` writes them).
    ///
    /// - Complexity: O(s) for s sightings.
    public func record(_ records: WirelessRecords, at date: Date = Date()) {
        guard path != nil else { return }  // in memory only: the store's table knows what it heard since start
        pendingNetworks.withLockedValue { pending in
            for sighting in records.sightings {
                pending[sighting] = SeenSpan(first: pending[sighting]?.first ?? date, last: date)
            }
        }
    }

    /// Writes the Wi-Fi sightings taken in since the last flush; on failure, keeps them for the next one.
    ///
    /// - Returns: Whether they are on disk now.
    func flushNetworks() async -> Bool {
        let sightings = pendingNetworks.withLockedValue { pending in
            defer { pending = [:] }
            return pending
        }
        guard let database, !sightings.isEmpty else { return true }
        do {
            try await database.writeNetworks(sightings)
            return true
        } catch {
            pendingNetworks.withLockedValue { pending in
                pending.merge(sightings) { newer, older in SeenSpan(first: older.first, last: newer.last) }
            }
            // Retried every flush; the device writes, on the same disk, say it at most once a minute too.
            logger.log(.registryWriteFailed, ["error": "\(error)", "devices.pending": "0"])
            return false
        }
    }
}
