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
/// An alert decided in quiet hours is written at once with a not-before time (their end): it is kept, and survives a
/// restart, but not offered before then (``AlertHold``: in order with the rest). A timer wakes the outbox at the
/// earliest not-before time; ``expire(now:)`` releases what is due too.
///
/// Bounded: at most ``Limits/maximumUndelivered`` alerts are kept, held ones included, beyond which the oldest is
/// dropped (`alert dropped reason=outbox-full`), and ``expire(now:)`` drops those undelivered for ``Limits/expiry``
/// from the time they could go — their not-before time, else their creation (`reason=expired`).
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
        /// When quiet hours let it go; `nil`: from its creation.
        var notBefore: Date?
        var isPending: Bool { deliveries.values.contains(.pending) }
        /// Where its expiry counts from: when it could go first.
        var offerable: Date { max(alert.created, notBefore ?? alert.created) }
    }

    public let limits: Limits
    /// What became of the alerts for each destination since start.
    public nonisolated let outcomes = AlertOutcomeCounts()
    let database: RegistryDatabase?
    private let logger: Logger
    private var entries: [Int64: Entry] = [:]
    /// The keys of ``entries`` in increasing order.
    private var order: [Int64] = []
    private(set) var seqByID: [UUID: Int64] = [:]
    private var knownDestinations: [String] = []
    private var nextSeq: Int64 = 1
    private var follower:
        (token: Int, destinations: Set<String>, continuation: AsyncStream<AlertFeedEvent>.Continuation)?
    private var followers = 0
    /// The test alerts waiting for their answers.
    var tests: [UUID: AsyncStream<AlertTestAnswer>.Continuation] = [:]
    /// The alerts quiet hours hold, not offered yet.
    var hold = AlertHold()
    /// The one timer: wakes the outbox at ``AlertHold/nextRelease``, with that time.
    var releaseTimer: (due: Date, task: Task<Void, Never>)?
    /// The person's rules.
    public private(set) var rules = AlertRules()

    /// Opens the outbox of `registry` (in memory when the registry is), loading what it holds; rows that cannot be
    /// read are logged and skipped. The alerts whose not-before time is after `now` stay held until then.
    public init(registry: DeviceRegistry, limits: Limits = Limits(), logger: Logger, now: Date = Date()) {
        self.limits = limits
        self.database = registry.database
        self.logger = logger
        guard let database else { return }
        do {
            let loaded = try database.loadAlerts()
            for stored in loaded.alerts {
                guard let alert = stored.alert else { continue }  // a row this version cannot read
                let deliveries = stored.deliveries.compactMapValues(State.init(rawValue:))
                entries[stored.seq] = Entry(
                    seq: stored.seq,
                    alert: alert,
                    deliveries: deliveries,
                    notBefore: stored.notBefore
                )
                if alert.event != .test {
                    let lowered = hold.write(
                        stored.seq,
                        notBefore: stored.notBefore ?? min(alert.created, now),
                        now: now
                    )
                    for each in lowered { entries[each.seq]?.notBefore = each.notBefore }
                }
                order.append(stored.seq)
                seqByID[alert.id] = stored.seq
                nextSeq = max(nextSeq, stored.seq + 1)
            }
            knownDestinations = loaded.destinations
            rules = AlertRules(loaded.rules)
            _ = hold.release(at: now)  // due already: pending like any other
            if hold.nextRelease != nil { Task { [weak self] in await self?.releaseDue() } }  // sets the timer
        } catch {
            log(.registryUnusable, ["path": database.path, "error": "\(error)"])
        }
    }

    deinit { releaseTimer?.task.cancel() }

    // MARK: - Alerts

    /// Writes `alert` with a delivery for each destination known, then offers it to the follower — at once, or from
    /// `notBefore` (the end of the quiet hours it was decided in) when that is after `now`. The alerts held before it
    /// go no later than it does.
    ///
    /// - Returns: The destinations it is for.
    @discardableResult
    public func add(_ alert: Alert, notBefore: Date? = nil, now: Date = Date()) -> [String] {
        add(alert, for: knownDestinations, notBefore: notBefore, now: now)
    }

    /// Writes `decided` (see ``add(_:notBefore:now:)``).
    @discardableResult
    public func add(_ decided: DecidedAlert, now: Date = Date()) -> [String] {
        add(decided.alert, notBefore: decided.notBefore, now: now)
    }

    /// Writes `alert` for `destinations`; a test alert (`notBefore` `nil`) is never held and moves no held one.
    func add(_ alert: Alert, for destinations: [String], notBefore: Date? = nil, now: Date = Date()) -> [String] {
        let notBefore = notBefore.flatMap { $0 > now ? $0 : nil }
        var fields = [
            "id": alert.id.uuidString.lowercased(), "event": alert.event.rawValue,
            "device": alert.device.map { "\($0)" } ?? "", "destinations": destinations.joined(separator: ","),
        ]
        if let notBefore { fields["not.before"] = PeerScanWire.millisecondTimestamp(notBefore) }
        log(.alertQueued, fields)
        guard !destinations.isEmpty else { return [] }
        let seq = nextSeq
        nextSeq += 1
        let lowered =
            alert.event == .test ? [] : hold.write(seq, notBefore: notBefore ?? now, now: now)
        if let database {
            do {
                try database.insertAlert(
                    alert,
                    seq: seq,
                    destinations: destinations,
                    notBefore: notBefore,
                    lowering: lowered.map { ($0.seq, $0.notBefore) }
                )
            } catch {
                log(.registryWriteFailed, ["error": "\(error)"])
            }
        }
        for each in lowered { entries[each.seq]?.notBefore = each.notBefore }
        entries[seq] = Entry(
            seq: seq,
            alert: alert,
            deliveries: Dictionary(uniqueKeysWithValues: destinations.map { ($0, .pending) }),
            notBefore: notBefore
        )
        order.append(seq)
        seqByID[alert.id] = seq
        releaseDue(at: now)  // the earlier ones it brought down to now, before it
        if !hold.contains(seq) { offer(seq) }
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
        releaseDue(at: now)
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
        for seq in order where !hold.contains(seq) {
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

    /// Drops the alerts undelivered for ``Limits/expiry`` at `now` — counted from their not-before time, else their
    /// creation: an alert held overnight has its whole expiry after the quiet hours — each pending delivery logged
    /// (`alert dropped reason=expired`); offers those held until `now` (should the timer be late).
    /// - Complexity: O(e) for e alerts expired (they are the oldest: not-before times never decrease in the order).
    public func expire(now: Date = Date()) {
        releaseDue(at: now)
        let horizon = now - TimeInterval(Double(limits.expiry.components.seconds))
        while let oldest = order.first, let entry = entries[oldest], entry.offerable < horizon {
            drop(oldest, reason: "expired")
        }
    }

    /// Offers the alert at `seq` to the follower, for each of its destinations pending that it follows.
    func offer(_ seq: Int64) {
        guard let follower, let entry = entries[seq] else { return }
        for (destination, state) in entry.deliveries.sorted(by: { $0.key < $1.key })
        where state == .pending && follower.destinations.contains(destination) {
            follower.continuation.yield(.alert(destination: destination, entry.alert))
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

    func remove(_ seq: Int64) {
        guard let entry = entries.removeValue(forKey: seq) else { return }
        hold.remove(seq)
        seqByID[entry.alert.id] = nil
        tests.removeValue(forKey: entry.alert.id)?.finish()
        if order.first == seq {
            order.removeFirst()
        } else if let index = order.firstIndex(of: seq) {
            order.remove(at: index)
        }
    }

    nonisolated func log(_ message: LogMessage, _ fields: [String: String]) {
        logger.log(message, fields.mapValues { .string($0) })
    }
}
