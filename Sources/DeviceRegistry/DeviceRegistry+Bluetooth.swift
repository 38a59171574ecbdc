import Foundation
import MonitoringLog
import PeerScanModel

extension DeviceRegistry {
    /// Writes the IRK changes taken in since the last flush; on failure, keeps them for the next one (unless newer
    /// ones came meanwhile).
    ///
    /// - Returns: Whether they are on disk now (`true` in memory only).
    func flushIRKs() async -> Bool {
        let changes = pendingIRKs.withLockedValue { pending in
            defer { pending = [:] }
            return pending
        }
        guard let database, !changes.isEmpty else { return true }
        do {
            try await database.writeIRKs(changes)
            return true
        } catch {
            pendingIRKs.withLockedValue { pending in pending.merge(changes) { newer, _ in newer } }
            logger.log(.registryWriteFailed, ["error": "\(error)", "devices.pending": "\(changes.count)"])
            return false
        }
    }
}

extension DeviceHistory {
    /// Whether it is a Bluetooth device nobody touched: its one key a `bluetooth:` address, and no label (a person's
    /// name, note or mark). Whether it has an IRK the registry knows apart.
    var isUntouchedBluetooth: Bool {
        guard boundKeys.count == 1, case .bluetooth? = boundKeys.first else { return false }
        return label.isEmpty
    }
}
