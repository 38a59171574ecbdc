/// When probe rounds run, as a value: every ``interval``, and sooner when one is asked for (scanning switched on),
/// but never two rounds closer than ``floor``, however often they are asked for. A round asked for within the floor
/// of the last one is not dropped: the asks are coalesced into one round at the floor's end. Nothing here reads a
/// clock: the caller passes the time, so a test drives it.
///
/// So whatever clients do — a privileged one switching scanning off and on thousands of times, say — the daemon
/// sweeps at most once per floor: a storm of s seconds makes at most s / floor + 1 rounds.
///
/// ## Performance
/// Every operation is O(1).
struct ProbeSchedule: Sendable, Equatable {
    /// The time between rounds nobody asked for.
    let interval: Duration
    /// The least time between the starts of two rounds; at most ``interval``.
    let floor: Duration
    /// When the last round started; `nil` before the first.
    private(set) var lastRound: Duration?
    /// When the schedule last found nothing to scan (scanning off), if it did since the last round: the next check
    /// nobody asked for is an interval later.
    private(set) var lastIdle: Duration?
    /// The asks not served yet; the next round serves them all.
    private(set) var pendingAsks = 0

    /// A schedule whose first round is due at once.
    ///
    /// - Parameters:
    ///   - interval: The time between rounds nobody asked for; positive (precondition).
    ///   - floor: The least time between two rounds; more than `interval` counts as `interval`.
    init(interval: Duration, floor: Duration) {
        precondition(interval > .zero, "a probe interval is positive")
        self.interval = interval
        self.floor = min(max(floor, .zero), interval)
    }

    /// When the next round is due: at once before the first; the floor after the last round if a round was asked
    /// for (or the ask's own time, if later); else the interval after the last round or the last idle check.
    var nextRound: Duration {
        if pendingAsks > 0 { return lastRound.map { $0 + floor } ?? .zero }
        guard let since = lastIdle ?? lastRound else { return .zero }
        return since + interval
    }

    /// Records that a round is asked for at `now`.
    ///
    /// - Parameter now: The time on the caller's clock.
    /// - Returns: Whether the ask is coalesced: it waits for the floor's end (or for a round already due) instead
    ///   of starting a round at once.
    /// - Complexity: O(1).
    @discardableResult
    mutating func ask(at now: Duration) -> Bool {
        pendingAsks += 1
        return pendingAsks > 1 || nextRound > now
    }

    /// Whether a round (or, with nothing to scan, an idle check) is due at `now`.
    func isDue(at now: Duration) -> Bool { now >= nextRound }

    /// Records that a round started at `now`; it serves every ask so far.
    ///
    /// - Returns: The asks it serves (for the `probe round` line).
    /// - Complexity: O(1).
    mutating func roundStarted(at now: Duration) -> Int {
        defer {
            lastRound = now
            lastIdle = nil
            pendingAsks = 0
        }
        return pendingAsks
    }

    /// Records that a due round found nothing to scan (scanning off) at `now`: the next check is an interval later,
    /// or sooner if a round is asked for. The asks so far are dropped: there was nothing to probe for them.
    ///
    /// - Complexity: O(1).
    mutating func foundIdle(at now: Duration) {
        lastIdle = now
        pendingAsks = 0
    }
}
