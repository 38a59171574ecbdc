import AlertDelivery
import Foundation
import Logging
import MonitoringLog
import PeerScanClient
import PeerScanModel
import ServiceLifecycle
import Varlink

/// Follows peerscand's outbox: one `FollowAlerts` call naming every destination, each reply offered to the sender;
/// called again after 1 s (doubling to 30 s) whenever peerscand is away or ends the call. peerscand offers again what
/// was not acknowledged; the sender's ledger keeps it from being sent twice.
struct AlertFollower: Service {
    let socketPath: String
    let sender: AlertSender<ContinuousClock>
    let logger: Logger
    let policy = RetryPolicy(initial: .seconds(1), maximum: .seconds(30), jitter: 0.2, retryAfterLimit: .seconds(30))

    func run() async throws {
        do {
            try await cancelWhenGracefulShutdown { try await follow() }
        } catch is CancellationError {}
    }

    private func follow() async throws {
        let parameters = PeerScanWire.FollowAlertsParameters(destinations: sender.destinations.map(\.name))
        var failures = 0
        while true {
            let problem: String
            do {
                try await PeerScanConnection.withConnection(to: socketPath) { connection in
                    failures = 0  // reached: the next failure waits 1 s again
                    try await connection.callMorePassingJSON("FollowAlerts", parameters) { json in
                        let reply = try JSONDecoder().decode(PeerScanWire.FollowAlertsReply.self, from: json)
                        sender.offer(reply.alert, to: reply.destination)
                        return true
                    }
                }
                problem = "peerscand ended the call"
            } catch {
                try Task.checkCancellation()
                problem = "\(error)"
            }
            failures += 1
            let wait = policy.delay(afterFailures: failures, random: Double.random(in: 0..<1))
            logger.log(
                .alertsCallFailed,
                ["method": "FollowAlerts", "error": "\(problem)", "retry.in": "\(Self.seconds(wait))"]
            )
            try await Task.sleep(for: wait)
        }
    }

    /// Passes an acknowledgement to peerscand on a connection of its own (the follower's connection is taken by its
    /// `more` call). An error reply is final (another try would get the same): logged, not retried.
    static func acknowledger(socketPath: String, logger: Logger) -> AlertSender<ContinuousClock>.Acknowledge {
        { ack in
            do {
                _ = try await PeerScanConnection.withConnection(to: socketPath) { connection in
                    try await connection.callPassingJSON("AckAlert", ack)
                }
            } catch let error as VarlinkError {
                logger.log(.alertsCallFailed, ["method": "AckAlert", "error": "\(error)"])
            }
        }
    }

    static func seconds(_ duration: Duration) -> String {
        String(format: "%.1fs", Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
    }
}
