import Logging
import MonitoringLog
import ServiceLifecycle
import UnixSignals

/// The signals that are not a stop: SIGUSR1 switches scanning off and SIGUSR2 on (a debugging aid for `--dump` runs
/// and tests); SIGHUP, which asks daemons to reload, is logged and ignored — peerscand has no configuration file to
/// read again — so that it never ends the daemon (its default action would, uncleanly).
struct DaemonSignals: Service {
    /// Trapped by ``trap()`` before the service group starts: one that arrives while the services are starting (the
    /// socket may already answer) is handled, not the default action that would end the daemon.
    let signals: UnixSignalsSequence
    /// Switches scanning (and, switching it on, asks for a probe round), as SetScanning does.
    let setScanning: @Sendable (Bool) async -> UInt64
    let logger: Logger

    /// The signals this service handles, trapped from now on.
    static func trap() async -> UnixSignalsSequence {
        await UnixSignalsSequence(trapping: .sigusr1, .sigusr2, .sighup)
    }

    func run() async throws {
        for await signal in signals.cancelOnGracefulShutdown() {
            if signal == .sighup {
                logger.log(.sighupIgnored, ["reason": "nothing to reload: options are read at start"])
            } else {
                _ = await setScanning(signal == .sigusr2)
            }
        }
    }
}
