import Logging
import PeerScanCore
import ServiceLifecycle
import UnixSignals

/// The signals that are not a stop: SIGUSR1 switches scanning off and SIGUSR2 on (a debugging aid for `--dump` runs
/// and tests); SIGHUP, which asks daemons to reload, is logged and ignored — peerscand has no configuration file to
/// read again — so that it never ends the daemon (its default action would, uncleanly).
struct DaemonSignals: Service {
    let scanner: ScanService
    let logger: Logger

    func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sigusr1, .sigusr2, .sighup)
        for await signal in signals.cancelOnGracefulShutdown() {
            if signal == .sighup {
                logger.info("sighup ignored", metadata: ["reason": "nothing to reload: options are read at start"])
            } else {
                _ = await scanner.setScanning(signal == .sigusr2)
            }
        }
    }
}
