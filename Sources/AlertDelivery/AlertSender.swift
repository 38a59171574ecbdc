import Foundation
import Logging
import MonitoringLog
import NIOConcurrencyHelpers
import PeerScanModel

/// Delivers the alerts peerscand offers: one queue per destination (a receiver that is down holds back only its own
/// alerts), in the order offered (so in order per device), each alert retried after transient failures as
/// ``RetryPolicy`` says and acknowledged (`AckAlert`) once the receiver took it or refused it for good.
///
/// A destination with a digest window (`--digest`, `?digest=`) collects its alerts from the first one for the
/// window's length (``DigestWindow``), then sends them as one message (``AlertDigest``) and acknowledges each once it
/// was taken; the scanner's faults and tests go at once (``AlertDigest/isSentAtOnce(_:)``).
///
/// ## Threading
/// ``offer(_:to:)`` may be called from any task: the ledger is under a lock and the queues are `AsyncStream`s, each
/// read by one loop of ``run()``. The clock is injected: the tests drive the retries with a manual clock.
public final class AlertSender<C: Clock>: Sendable where C.Duration == Duration {
    /// Passes one acknowledgement to peerscand. Throws to have it tried again later (peerscand unreachable);
    /// returns when peerscand took it or answered with an error that another try would not change.
    public typealias Acknowledge = @Sendable (PeerScanWire.AckAlertParameters) async throws -> Void

    typealias Queue = (
        stream: AsyncStream<PeerScanWire.Alert>, continuation: AsyncStream<PeerScanWire.Alert>.Continuation
    )

    /// The destinations, in the order given.
    public let destinations: [Destination]
    private let queues: [String: Queue]
    private let acks = AsyncStream.makeStream(of: PeerScanWire.AckAlertParameters.self)
    private let ledger = NIOLockedValueBox(DeliveryLedger())
    /// The open digest window of each destination that has one.
    private let windows = NIOLockedValueBox([String: DigestWindow<C.Instant>]())
    private let transport: any AlertTransport
    private let policy: RetryPolicy
    private let acknowledgementPolicy = RetryPolicy(
        initial: .seconds(1),
        maximum: .seconds(30),
        jitter: 0.2,
        retryAfterLimit: .seconds(30)
    )
    private let clock: C
    private let linkBase: String?
    private let digest: Duration?
    private let logger: Logger
    private let acknowledge: Acknowledge
    private let random: @Sendable () -> Double

    /// A sender.
    ///
    /// - Parameters:
    ///   - destinations: Where alerts go (names differ: ``Destination/checkNamesDiffer(_:)``).
    ///   - transport: What sends the requests.
    ///   - policy: When to try again.
    ///   - clock: The clock the waits are on.
    ///   - linkBase: The page's address, prefixed to alerts' links.
    ///   - digest: The digest window of the destinations without a `?digest=` of their own (`--digest`); `nil` or
    ///     zero: none.
    ///   - logger: Where `alert sent` and `alert failed` go.
    ///   - random: The jitter's draws, in 0..<1.
    ///   - acknowledge: Passes an acknowledgement to peerscand.
    public init(
        destinations: [Destination],
        transport: any AlertTransport,
        policy: RetryPolicy = .standard,
        clock: C,
        linkBase: String?,
        digest: Duration? = nil,
        logger: Logger,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        acknowledge: @escaping Acknowledge
    ) {
        self.destinations = destinations
        self.queues = Dictionary(
            destinations.map { ($0.name, AsyncStream.makeStream(of: PeerScanWire.Alert.self)) },
            uniquingKeysWith: { first, _ in first }
        )
        self.transport = transport
        self.policy = policy
        self.clock = clock
        self.linkBase = linkBase
        self.digest = digest
        self.logger = logger
        self.random = random
        self.acknowledge = acknowledge
    }

    /// Takes an alert peerscand offered for a destination.
    ///
    /// - Returns: `true` if it was queued; `false` for a destination not given or an alert already queued or
    ///   delivered (offered again after a reconnect: not sent twice).
    /// - Complexity: O(1).
    @discardableResult
    public func offer(_ alert: PeerScanWire.Alert, to destination: String) -> Bool {
        guard let queue = queues[destination] else { return false }
        guard ledger.withLockedValue({ $0.offer(id: alert.id, destination: destination) }) else { return false }
        queue.continuation.yield(alert)
        return true
    }

    /// How many alerts are queued, being delivered, or waiting for their acknowledgement.
    public var pendingCount: Int { ledger.withLockedValue { $0.count } }

    /// How many alerts the digest windows have collected and not yet sent.
    public var collectedCount: Int { windows.withLockedValue { $0.values.reduce(0) { $0 + $1.collected.count } } }

    /// Delivers and acknowledges until cancelled (or, in tests, until ``finish()`` and the queues drained).
    public func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.acknowledgeAll() }
            await withDiscardingTaskGroup { deliveries in
                for destination in destinations {
                    guard let queue = queues[destination.name] else { continue }
                    if let window = destination.digestWindow(global: digest) {
                        deliveries.addTask { await self.deliverDigests(queue.stream, to: destination, window: window) }
                    } else {
                        deliveries.addTask { await self.deliverQueue(queue.stream, to: destination) }
                    }
                }
            }
            acks.continuation.finish()  // every queue ended: the acknowledgements end after the last one
        }
    }

    /// Ends the queues: ``run()`` returns once what was queued is delivered and acknowledged.
    public func finish() {
        for queue in queues.values { queue.continuation.finish() }
    }

    private func deliverQueue(_ stream: AsyncStream<PeerScanWire.Alert>, to destination: Destination) async {
        for await alert in stream {
            guard await deliver(AlertDigest([alert]), to: destination) else { return }  // cancelled
        }
    }

    /// A destination with a digest: its alerts collected in a window, each window's digests sent when it ends; the
    /// ones sent at once in a lane of their own, so a window or a digest being retried never holds them back.
    private func deliverDigests(
        _ stream: AsyncStream<PeerScanWire.Alert>,
        to destination: Destination,
        window length: Duration
    ) async {
        let name = destination.name
        windows.withLockedValue { $0[name] = DigestWindow(length: length) }
        let ends = AsyncStream.makeStream(of: C.Instant.self)  // each window's end, as it opens
        let atOnce = AsyncStream.makeStream(of: PeerScanWire.Alert.self)
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await alert in atOnce.stream {
                    guard await self.deliver(AlertDigest([alert]), to: destination) else { return }
                }
            }
            group.addTask {
                for await end in ends.stream {
                    do { try await self.clock.sleep(until: end, tolerance: nil) } catch { return }
                    for digest in self.windows.withLockedValue({ $0[name]?.close() ?? [] }) {
                        guard await self.deliver(digest, to: destination) else { return }
                    }
                }
            }
            for await alert in stream {
                if AlertDigest.isSentAtOnce(alert) {
                    atOnce.continuation.yield(alert)
                } else if let end = windows.withLockedValue({ $0[name]?.collect(alert, at: clock.now) }) {
                    ends.continuation.yield(end)
                }
            }
            atOnce.continuation.finish()
            ends.continuation.finish()
        }
    }

    /// Delivers a digest (one alert: as itself), retrying transient failures, and queues the acknowledgement of each
    /// of its alerts; `false` when cancelled meanwhile.
    private func deliver(_ digest: AlertDigest, to destination: Destination) async -> Bool {
        guard let (outcome, answer) = await send(digest, to: destination) else { return false }
        ledger.withLockedValue { ledger in
            for alert in digest.alerts { ledger.delivered(id: alert.id, destination: destination.name) }
        }
        for alert in digest.alerts {
            acks.continuation.yield(
                PeerScanWire.AckAlertParameters(
                    id: alert.id,
                    destination: destination.name,
                    outcome: outcome,
                    answer: answer
                )
            )
        }
        return true
    }

    /// Sends a digest's request until the receiver takes it (`sent`) or refuses it for good (`rejected`), with the
    /// receiver's answer; `nil` when cancelled meanwhile. Logs `alert sent` or `alert failed` per alert, and each
    /// transient failure (of a digest: `alert digest failed`, once per try).
    private func send(_ digest: AlertDigest, to destination: Destination) async -> (String, String?)? {
        let request = destination.request(for: digest, linkBase: linkBase)
        var failures = 0
        while !Task.isCancelled {
            let start = clock.now
            let outcome: DeliveryOutcome
            let problem: String
            var answer: String?
            do {
                let received = try await transport.send(request)
                outcome = DeliveryOutcome(status: received.status, retryAfter: received.retryAfter)
                answer = destination.redacting(received.summary)
                problem = answer ?? ""
            } catch {
                if Task.isCancelled { return nil }
                outcome = .transient(status: nil, retryAfter: nil)
                problem = destination.redacting("\(error)")
            }
            let elapsed = start.duration(to: clock.now)
            var common: Logger.Metadata = ["destination": "\(destination.name)"]
            if !digest.isSingle { common["digest"] = "\(digest.key)" }
            switch outcome {
            case .sent(let status):
                for alert in digest.alerts {
                    logger.log(
                        .alertSent,
                        common.merging(
                            ["id": "\(alert.id)", "status": "\(status)", "ms": "\(Self.milliseconds(elapsed))"]
                        ) { $1 }
                    )
                }
                return ("sent", answer)
            case .rejected:
                for alert in digest.alerts {
                    logger.log(
                        .alertSendFailed,
                        common.merging(["id": "\(alert.id)", "error": "rejected: \(problem)"]) { $1 }
                    )
                }
                return ("rejected", answer)
            case .transient(_, let retryAfter):
                failures += 1
                let wait = policy.delay(afterFailures: failures, retryAfter: retryAfter, random: random())
                let retry: Logger.Metadata = ["error": "\(problem)", "retry.in": "\(Self.seconds(wait))"]
                if digest.isSingle {
                    logger.log(.alertSendFailed, common.merging(retry) { $1 }.merging(["id": "\(digest.key)"]) { $1 })
                } else {
                    logger.log(
                        .alertDigestFailed,
                        common.merging(retry) { $1 }.merging(["alerts": "\(digest.alerts.count)"]) { $1 }
                    )
                }
                do { try await clock.sleep(for: wait) } catch { return nil }
            }
        }
        return nil
    }

    private func acknowledgeAll() async {
        for await ack in acks.stream {
            var failures = 0
            while !Task.isCancelled {
                do {
                    try await acknowledge(ack)
                    ledger.withLockedValue { $0.acknowledged(id: ack.id, destination: ack.destination) }
                    break
                } catch {
                    failures += 1
                    let wait = acknowledgementPolicy.delay(afterFailures: failures, random: random())
                    logger.log(
                        .alertsCallFailed,
                        ["method": "AckAlert", "error": "\(error)", "retry.in": "\(Self.seconds(wait))"]
                    )
                    do { try await clock.sleep(for: wait) } catch { return }
                }
            }
        }
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }

    static func seconds(_ duration: Duration) -> String {
        String(format: "%.1fs", Double(milliseconds(duration)) / 1000)
    }
}
