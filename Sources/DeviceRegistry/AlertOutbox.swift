import Foundation
import Logging
import MonitoringLog
import PeerScanCore
import PeerScanModel

/// The alerts' outbox: every alert peerscand decided, kept in the registry's database until each destination it was
/// offered to acknowledged it, it expired, or the outbox overflowed — and the person's alert rules.
///
/// An alert is written (one transaction) before it is offered to anyone, so a restart offers again every alert not
/// acknowledged, in the order they were decided. It gets a delivery for each destination a sender ever named
/// (``follow(_:now:)``); a destination named for the first time gets only the alerts written from then on. An alert
/// written while no sender ever followed has no delivery and is not kept (its `alert queued` line says
/// `destinations=`).
///
/// Bounded: at most ``Limits/maximumUndelivered`` alerts are kept, beyond which the oldest is dropped (`alert
/// dropped reason=outbox-full`), and ``expire(now:)`` drops those older than ``Limits/expiry`` (`reason=expired`).
/// Memory holds what the database holds, and answers every read; a write that fails is logged (`registry write
/// failed`) and the outbox goes on in memory.
public actor AlertOutbox {
    /// The outbox's bounds (peerscand's `--alert-expiry` and `--alert-outbox-max`).
    public struct Limits: Sendable {
        /// How long an alert is kept undelivered.
        public var expiry: Duration
        /// The most alerts kept undelivered.
        public var maximumUndelivered: Int

        /// Creates limits; by default peerscand's.
        public init(expiry: Duration = .seconds(86_400), maximumUndelivered: Int = 10_000) {
            self.expiry = expiry
            self.maximumUndelivered = maximumUndelivered
        }
    }

    /// A delivery's state.
    private enum State: String {
        case pending, sent, rejected
    }

    private struct Entry {
        var seq: Int64
        var alert: Alert
        var deliveries: [String: State]
        var isPending: Bool { deliveries.values.contains(.pending) }
    }

    public let limits: Limits
    /// What became of the alerts for each destination since start.
    public nonisolated let outcomes = AlertOutcomeCounts()
    private let database: RegistryDatabase?
    private let logger: Logger
    private var entries: [Int64: Entry] = [:]
    /// The keys of ``entries`` in increasing order.
    private var order: [Int64] = []
    private var seqByID: [UUID: Int64] = [:]
    private var knownDestinations: [String] = []
    private var nextSeq: Int64 = 1
    private var follower:
        (token: Int, destinations: Set<String>, continuation: AsyncStream<AlertFeedEvent>.Continuation)?
    private var followers = 0
    /// The test alerts waiting for their answers.
    private var tests: [UUID: AsyncStream<AlertTestAnswer>.Continuation] = [:]
    /// The person's rules.
    public private(set) var rules = AlertRules()

    /// Opens the outbox of `registry` (in memory when the registry is), loading what it holds; rows that cannot be
    /// read are logged and skipped.
    public init(registry: DeviceRegistry, limits: Limits = Limits(), logger: Logger) {
        self.limits = limits
        self.database = registry.database
        self.logger = logger
        guard let database else { return }
        do {
            let loaded = try database.loadAlerts()
            for stored in loaded.alerts {
                guard let alert = stored.alert else { continue }  // a row this version cannot read
                let deliveries = stored.deliveries.compactMapValues(State.init(rawValue:))
                entries[stored.seq] = Entry(seq: stored.seq, alert: alert, deliveries: deliveries)
                order.append(stored.seq)
                seqByID[alert.id] = stored.seq
                nextSeq = max(nextSeq, stored.seq + 1)
            }
            knownDestinations = loaded.destinations
            rules = AlertRules(loaded.rules)
        } catch {
            log(.registryUnusable, ["path": database.path, "error": "\(error)"])
        }
    }

    // MARK: - Alerts

    /// Writes `alert` with a delivery for each destination known, then offers it to the follower.
    ///
    /// - Returns: The destinations it is for.
    @discardableResult
    public func add(_ alert: Alert) -> [String] {
        add(alert, for: knownDestinations)
    }

    /// Writes a test alert for `destinations` and offers it; the answers come in the stream returned (which ends once
    /// each destination answered, or ``finishTest(_:)`` is called).
    func addTest(_ alert: Alert, for destinations: [String]) -> AsyncStream<AlertTestAnswer> {
        let (stream, continuation) = AsyncStream<AlertTestAnswer>.makeStream()
        tests[alert.id] = continuation
        _ = add(alert, for: destinations)
        return stream
    }

    /// Writes a test alert for `destinations`, offers it, and waits up to `timeout` for their answers; the alert
    /// goes from the outbox then (a test is not sent late).
    ///
    /// - Returns: Each destination's answer, in the order given (no outcome: none in time).
    public func sendTest(_ alert: Alert, to destinations: [String], timeout: Duration) async -> [AlertTestAnswer] {
        let answers = addTest(alert, for: destinations)
        let received = await Self.collect(answers, timeout: timeout)
        finishTest(alert.id)
        return destinations.map { destination in
            received.last { $0.destination == destination }
                ?? AlertTestAnswer(destination: destination, outcome: nil, answer: nil)
        }
    }

    /// The answers `stream` brings until it ends or `timeout` passes.
    private nonisolated static func collect(
        _ stream: AsyncStream<AlertTestAnswer>,
        timeout: Duration
    ) async -> [AlertTestAnswer] {
        await withTaskGroup(of: [AlertTestAnswer]?.self) { group in
            group.addTask {
                var all: [AlertTestAnswer] = []
                for await answer in stream { all.append(answer) }  // ends early when cancelled
                return all
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            var collected: [AlertTestAnswer] = []
            while let result = await group.next() {
                group.cancelAll()
                if let result { collected = result }
            }
            return collected
        }
    }

    /// Ends a test: its alert goes from the outbox whether or not every destination answered (a test is not sent
    /// late).
    func finishTest(_ id: UUID) {
        tests.removeValue(forKey: id)?.finish()
        if let seq = seqByID[id] {
            do {
                try database?.updateDeliveries([], finished: [seq])
            } catch {
                log(.registryWriteFailed, ["error": "\(error)"])
            }
            remove(seq)
        }
    }

    private func add(_ alert: Alert, for destinations: [String]) -> [String] {
        log(
            .alertQueued,
            [
                "id": alert.id.uuidString.lowercased(), "event": alert.event.rawValue,
                "device": alert.device.map { "\($0)" } ?? "", "destinations": destinations.joined(separator: ","),
            ]
        )
        guard !destinations.isEmpty else { return [] }
        let seq = nextSeq
        nextSeq += 1
        if let database {
            do {
                try database.insertAlert(alert, seq: seq, destinations: destinations)
            } catch {
                log(.registryWriteFailed, ["error": "\(error)"])
            }
        }
        entries[seq] = Entry(
            seq: seq,
            alert: alert,
            deliveries: Dictionary(uniqueKeysWithValues: destinations.map { ($0, .pending) })
        )
        order.append(seq)
        seqByID[alert.id] = seq
        if let follower {
            for destination in destinations where follower.destinations.contains(destination) {
                follower.continuation.yield(.alert(destination: destination, alert))
            }
        }
        while order.count > limits.maximumUndelivered, let oldest = order.first {
            drop(oldest, reason: "outbox-full")
        }
        return destinations
    }

    /// Starts following for `destinations` (ending the follower before, which gets ``AlertFeedEvent/replaced``).
    ///
    /// - Returns: Every alert pending for one of them, oldest first, the stream of those written from now on, and a
    ///   token for ``stopFollowing(_:)``.
    public func follow(_ destinations: [String], now: Date = Date()) -> AlertFollowing {
        let new = destinations.filter { !knownDestinations.contains($0) }
        if !new.isEmpty {
            do {
                try database?.insertDestinations(new, since: now)
            } catch {
                log(.registryWriteFailed, ["error": "\(error)"])
            }
            knownDestinations += new
        }
        let wanted = Set(destinations)
        var pending: [(destination: String, alert: Alert)] = []
        for seq in order {
            guard let entry = entries[seq] else { continue }
            for (destination, state) in entry.deliveries.sorted(by: { $0.key < $1.key })
            where state == .pending && wanted.contains(destination) {
                pending.append((destination, entry.alert))
            }
        }
        follower?.continuation.yield(.replaced)
        follower?.continuation.finish()
        let (stream, continuation) = AsyncStream<AlertFeedEvent>.makeStream(bufferingPolicy: .unbounded)
        followers += 1
        follower = (followers, wanted, continuation)
        return AlertFollowing(pending: pending, updates: stream, token: followers)
    }

    /// Ends the follower of `token`, if it is still the one (a FollowAlerts call that ended).
    public func stopFollowing(_ token: Int) {
        guard follower?.token == token else { return }
        follower?.continuation.finish()
        follower = nil
    }

    /// The destinations the current follower named; `nil` while none follows.
    public var followedDestinations: Set<String>? { follower?.destinations }

    /// Records the sender's answer for an alert and a destination: removed for it (the alert goes when none of its
    /// destinations is pending); `rejected` is logged (`alert rejected`).
    ///
    /// - Returns: `false` if the outbox holds no such pending delivery (acknowledged already, dropped, or unknown).
    @discardableResult
    public func acknowledge(id: UUID, destination: String, outcome: AlertOutcome, answer: String?) -> Bool {
        guard let seq = seqByID[id], var entry = entries[seq], entry.deliveries[destination] == .pending else {
            return false
        }
        entry.deliveries[destination] = outcome == .sent ? .sent : .rejected
        outcomes.count(outcome == .sent ? .sent : .rejected, for: destination)
        tests[id]?.yield(AlertTestAnswer(destination: destination, outcome: outcome, answer: answer))
        if outcome == .rejected {
            log(
                .alertRejected,
                ["id": id.uuidString.lowercased(), "destination": destination, "answer": answer ?? ""]
            )
        }
        let finished = !entry.isPending
        do {
            try database?.updateDeliveries(
                [(seq, destination, entry.deliveries[destination]!.rawValue)],
                finished: finished ? [seq] : []
            )
        } catch {
            log(.registryWriteFailed, ["error": "\(error)"])
        }
        if finished {
            remove(seq)
        } else {
            entries[seq] = entry
        }
        return true
    }

    /// Drops the alerts older than ``Limits/expiry`` at `now`, each pending delivery logged (`alert dropped
    /// reason=expired`).
    /// - Complexity: O(e) for e alerts expired (they are the oldest).
    public func expire(now: Date = Date()) {
        let horizon = now - TimeInterval(Double(limits.expiry.components.seconds))
        while let oldest = order.first, let entry = entries[oldest], entry.alert.created < horizon {
            drop(oldest, reason: "expired")
        }
    }

    /// How many alerts are kept undelivered.
    public var undeliveredCount: Int { order.count }

    /// The alerts pending for `destination`, oldest first.
    public func pending(for destination: String) -> [Alert] {
        order.compactMap { entries[$0] }.filter { $0.deliveries[destination] == .pending }.map(\.alert)
    }

    // MARK: - Rules

    /// Sets the rule of `device` (the default rule when `nil`), or removes it when `events` is `nil`.
    public func setRule(device: DeviceID?, events: [AlertEvent]?) {
        if let events {
            rules.set(AlertRule(device: device, events: events))
        } else {
            rules.remove(device: device)
        }
        do {
            try database?.writeRule(device: device, events: events)
        } catch {
            log(.registryWriteFailed, ["error": "\(error)"])
        }
    }

    // MARK: - Removing

    private func drop(_ seq: Int64, reason: String) {
        guard let entry = entries[seq] else { return }
        let pending = entry.deliveries.filter { $0.value == .pending }.keys.sorted()
        for destination in pending {
            outcomes.count(.dropped, for: destination)
            log(
                .alertDropped,
                ["id": entry.alert.id.uuidString.lowercased(), "destination": destination, "reason": reason]
            )
        }
        do {
            try database?.updateDeliveries([], finished: [seq])
        } catch {
            log(.registryWriteFailed, ["error": "\(error)"])
        }
        remove(seq)
    }

    private func remove(_ seq: Int64) {
        guard let entry = entries.removeValue(forKey: seq) else { return }
        seqByID[entry.alert.id] = nil
        tests.removeValue(forKey: entry.alert.id)?.finish()
        if order.first == seq {
            order.removeFirst()
        } else if let index = order.firstIndex(of: seq) {
            order.remove(at: index)
        }
    }

    private nonisolated func log(_ message: LogMessage, _ fields: [String: String]) {
        logger.log(message, fields.mapValues { .string($0) })
    }
}
