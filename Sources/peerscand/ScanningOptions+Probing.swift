import Logging
import MonitoringLog
import PeerScanCore
import Probing

extension ScanningOptions {
    /// The probe service these options ask for, probing the interfaces the store scans while scanning is on; `nil`
    /// without the neighbour table, with `--probe-interval 0`, or if its sockets cannot be opened (logged).
    func makeProbeService(store: SnapshotStore, logger: Logger) -> ProbeService? {
        guard neighbourTable, probeInterval > 0 else { return nil }
        do {
            return try ProbeService(
                interval: .milliseconds(Int64(probeInterval * 1000)),
                rate: probeRate,
                scope: { await store.scanning ? await store.hostStatus.interfaces : nil },
                logger: logger
            )
        } catch {
            logger.log(.probingUnavailable, ["error": "\(error)"])
            return nil
        }
    }
}
