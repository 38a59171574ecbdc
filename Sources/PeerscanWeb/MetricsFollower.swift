import Foundation
import PeerScanClient
import PeerScanModel
import Synchronization

/// peerscan-web's own follower of peerscand for `/metrics`: one Monitor call kept open for the process's life,
/// reconnecting with resume as the page does (``MonitorSession`` keeps the snapshot, applying each changeset), and
/// the presence it sees (``PresenceLedger``). A scrape reads both (``current``); no scrape calls GetSnapshot.
///
/// Threading: the one loop (``run()``) writes the state under the mutex; scrapes copy it out under the same mutex
/// (the snapshot is a copy-on-write value: a copy is O(1)).
public final class MetricsFollower: Sendable {
    private struct State {
        var session = MonitorSession()
        var presence = PresenceLedger()
    }

    private let socketPath: String
    private let backoff: Backoff
    private let clock: @Sendable () -> Double
    private let state = Mutex(State())

    /// A follower of the peerscand at `socketPath`.
    ///
    /// - Parameters:
    ///   - socketPath: peerscand's socket.
    ///   - backoff: The delays between reconnections.
    ///   - clock: Now, in seconds since the Unix epoch (when a device was last seen online).
    public init(
        socketPath: String,
        backoff: Backoff = Backoff(),
        clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }
    ) {
        self.socketPath = socketPath
        self.backoff = backoff
        self.clock = clock
    }

    /// The snapshot followed (`nil` before the first) and what was seen of presence.
    public var current: (snapshot: ScanSnapshot?, presence: PresenceLedger) {
        state.withLock { ($0.session.snapshot, $0.presence) }
    }

    /// Follows peerscand until the task is cancelled: each connection that ends or fails is made again after the
    /// backoff, resuming after the last sequence seen.
    public func run() async {
        var backoff = self.backoff
        while !Task.isCancelled {
            do {
                try await PeerScanConnection.withConnection(to: socketPath) { connection in
                    let parameters = state.withLock { $0.session.nextCallParameters() }
                    try await connection.monitor(parameters) { received in
                        backoff.reset()
                        let now = clock()
                        return state.withLock { state in
                            let update = state.session.receive(received.reply)
                            state.presence.take(update, at: now)
                            guard case .outOfSync = update else { return !Task.isCancelled }
                            state.session.resubscribe()
                            return false
                        }
                    }
                }
            } catch {
                // peerscand is away (restarting, say): /metrics shows peerscan_daemon_up 0 meanwhile.
            }
            do { try await Task.sleep(for: backoff.next()) } catch { return }
        }
    }
}
