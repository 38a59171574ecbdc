import DaemonSupport
import Logging
import MonitoringLog
import NIOPosix
import PeerScanCore
import ServiceLifecycle

/// Talks to systemd: `READY=1` once the socket is served, Avahi's state is known and the initial browse has settled
/// (`--startup-settle`), a `STATUS=` line whenever the device count or Avahi's state changes, `WATCHDOG=1` pings, and
/// `STOPPING=1` at shutdown. Does nothing when not started by systemd (no `$NOTIFY_SOCKET`).
///
/// The watchdog ping is sent only after the store and the event loop that serves clients both answered, so a
/// hung daemon stops pinging and systemd kills it (`WatchdogSec=`).
struct SystemdIntegration: Service {
    let notifier: SystemdNotifier
    let store: SnapshotStore
    let socketServed: AsyncStream<Void>
    let watchdogTimeout: Duration?
    let logger: Logger

    func run() async throws {
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                if let watchdogTimeout {
                    group.addTask { await pingWatchdog(every: watchdogTimeout / 2) }
                }
                group.addTask { await reportReadinessAndStatus() }
                // Runs until the daemon shuts down (or is cancelled), whatever its children do meanwhile.
                try? await gracefulShutdown()
                group.cancelAll()
            }
        } onGracefulShutdown: {
            send(["STOPPING=1", "STATUS=stopping"])
        }
    }

    private func reportReadinessAndStatus() async {
        var served = false
        for await _ in socketServed {
            served = true
            break
        }
        guard served else { return }  // the socket was never served: the daemon is failing
        await store.waitUntilSourceStateKnown()
        await store.waitUntilInitialBrowseSettled()
        guard !Task.isCancelled else { return }
        let subscription = await store.subscribe()
        var status = await Self.status(of: store)
        send(["READY=1", "STATUS=\(status)"])
        logger.log(.ready, ["status": "\(status)"])
        for await _ in subscription.updates.cancelOnGracefulShutdown() {
            let current = await Self.status(of: store)
            if current != status {
                status = current
                send(["STATUS=\(status)"])
            }
        }
    }

    private func pingWatchdog(every interval: Duration) async {
        while !Task.isCancelled {
            // Both loops must answer: the store's actor, and NIO's event loop that carries every connection.
            _ = await store.sequence
            guard (try? await MultiThreadedEventLoopGroup.singleton.any().submit({}).get()) != nil else { return }
            send(["WATCHDOG=1"])
            guard (try? await Task.sleep(for: interval)) != nil else { return }
        }
    }

    private func send(_ assignments: [String]) {
        do {
            try notifier.notify(assignments)
        } catch {
            logger.log(.systemdNotifyFailed, ["error": "\(error)"])
        }
    }

    /// E.g. `12 devices, avahi running, scanning on`.
    static func status(of store: SnapshotStore) async -> String {
        let devices = await store.deviceCount
        let host = await store.hostStatus
        let scanning = await store.scanning
        let avahi = host.sourceState.reason.map { "\(host.sourceState.name) (\($0))" } ?? host.sourceState.name
        return "\(devices) device\(devices == 1 ? "" : "s"), avahi \(avahi), scanning \(scanning ? "on" : "off")"
    }
}
