/// A packets-per-second ceiling, as a value: a token bucket that holds up to ``capacity`` tokens and gains ``rate``
/// a second; each datagram takes one. Nothing here reads a clock: the caller passes the time, so a test drives it.
///
/// Kept as the bucket's equivalent virtual schedule (the generic cell rate algorithm): the time at which the bucket
/// would be empty again, ``emptyUntil``, in whole `Duration`s, so that no rounding accumulates over a long sweep.
///
/// ## Performance
/// Every operation is O(1).
struct TokenBucket: Sendable, Equatable {
    /// Tokens gained per second.
    let rate: Int
    /// The most tokens held, so the largest burst.
    let capacity: Int
    /// The time between two tokens: one second / ``rate``.
    let spacing: Duration
    /// The time from which the bucket is full again if nothing more is taken; the tokens held at `now` are
    /// `capacity - (emptyUntil - now) / spacing`.
    private(set) var emptyUntil: Duration

    /// A full bucket.
    ///
    /// - Parameters:
    ///   - rate: Tokens gained per second; at least 1 (precondition).
    ///   - capacity: The most tokens held; at least 1 (precondition).
    ///   - now: The time on the caller's clock.
    init(rate: Int, capacity: Int, now: Duration) {
        precondition(rate >= 1 && capacity >= 1, "a token bucket gains and holds at least one token")
        self.rate = rate
        self.capacity = capacity
        spacing = .seconds(1) / rate
        emptyUntil = now
    }

    /// Takes a token if the bucket holds one at `now`.
    ///
    /// - Parameter now: The time on the caller's clock, never earlier than a time passed before.
    /// - Returns: `.zero` if a token was taken; otherwise how long until the bucket holds one (nothing taken).
    /// - Complexity: O(1).
    mutating func take(at now: Duration) -> Duration {
        let wait = waitForTokens(1, at: now)
        guard wait == .zero else { return wait }
        emptyUntil = max(emptyUntil, now) + spacing
        return .zero
    }

    /// How long until the bucket holds `count` tokens (at most ``capacity``), taking none.
    ///
    /// - Parameters:
    ///   - count: The tokens wanted; more than ``capacity`` counts as ``capacity``.
    ///   - now: The time on the caller's clock.
    /// - Returns: `.zero` if it holds them at `now`.
    /// - Complexity: O(1).
    func waitForTokens(_ count: Int, at now: Duration) -> Duration {
        let wanted = min(max(count, 1), capacity)
        let availableFrom = emptyUntil - spacing * (capacity - wanted)
        return availableFrom > now ? availableFrom - now : .zero
    }
}
