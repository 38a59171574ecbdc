import Logging
import MonitoringLog
import PeerScanCore
import Probing

extension ScanningOptions {
    /// The probe service these options ask for, probing the interfaces the store scans while scanning is on; `nil`
    /// without the neighbour table, with `--probe-interval 0`, or if its sockets cannot be opened (logged).
    /// Datagrams the kernel had no room for (`ENOBUFS`: the neighbour table full) go to `scanner`'s store, for the
    /// `host` item's `limits`.
    func makeProbeService(store: SnapshotStore, scanner: ScanService, logger: Logger) -> ProbeService? {
        guard neighbourTable, probeInterval > 0 else { return nil }
        do {
            return try ProbeService(
                interval: .seconds(probeInterval),
                rate: probeRate,
                scope: { await store.scanning ? await store.hostStatus.interfaces : nil },
                noRoom: { counts in scanner.submit(.probeNoRoom(counts)) },
                logger: logger
            )
        } catch {
            logger.log(.probingUnavailable, ["error": "\(error)"])
            return nil
        }
    }
}
