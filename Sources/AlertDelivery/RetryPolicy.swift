import Foundation

/// When to try a failed delivery again: 1 s after the first transient failure, doubling to 5 minutes, each wait
/// shortened by up to `jitter` of itself at random (so that many alerts queued behind one receiver that comes back do
/// not all retry in the same second); a receiver's `Retry-After` (429, 503) is honoured up to `retryAfterLimit`.
///
/// A value: the sender keeps the number of failures in a row and asks ``delay(afterFailures:retryAfter:random:)``.
public struct RetryPolicy: Sendable, Hashable {
    /// The wait after the first failure.
    public var initial: Duration
    /// The longest wait.
    public var maximum: Duration
    /// The fraction of a wait taken off at random, in 0..<1.
    public var jitter: Double
    /// The longest `Retry-After` honoured (a longer one waits this long).
    public var retryAfterLimit: Duration

    /// The policy of docs/alerts.md: 1 s doubling to 5 min, 20 % jitter, `Retry-After` up to an hour.
    public static let standard = RetryPolicy(
        initial: .seconds(1),
        maximum: .seconds(300),
        jitter: 0.2,
        retryAfterLimit: .seconds(3600)
    )

    /// A policy.
    public init(initial: Duration, maximum: Duration, jitter: Double, retryAfterLimit: Duration) {
        precondition(initial > .zero && maximum >= initial && (0..<1).contains(jitter))
        self.initial = initial
        self.maximum = maximum
        self.jitter = jitter
        self.retryAfterLimit = retryAfterLimit
    }

    /// The wait before the next try.
    ///
    /// - Parameters:
    ///   - failures: Failures in a row so far, at least 1.
    ///   - retryAfter: The receiver's `Retry-After`, if it sent one: waited as given (up to ``retryAfterLimit``),
    ///     without jitter (the receiver knows when it will take more).
    ///   - random: A number in 0..<1 (the jitter's draw; injected so that tests are exact).
    /// - Returns: The wait.
    /// - Complexity: O(1).
    public func delay(afterFailures failures: Int, retryAfter: Duration? = nil, random: Double) -> Duration {
        if let retryAfter { return min(max(retryAfter, .zero), retryAfterLimit) }
        let exponent = min(max(failures - 1, 0), 30)
        let backoff = min(initial * (1 << exponent), maximum)
        return backoff * (1 - jitter * min(max(random, 0), 1))
    }
}

/// What a delivery attempt came to.
public enum DeliveryOutcome: Sendable, Equatable {
    /// The receiver accepted it (2xx): acknowledged as `sent`.
    case sent(status: Int)
    /// The receiver refused it for good (a 3xx or a 4xx other than 408 and 429): acknowledged as `rejected`, not
    /// retried.
    case rejected(status: Int)
    /// Worth another try: 408, 429, 5xx (with the receiver's `Retry-After`, if any), or no answer at all (refused,
    /// timed out, TLS failed, the name did not resolve).
    case transient(status: Int?, retryAfter: Duration?)

    /// The outcome of an HTTP answer.
    ///
    /// - Parameters:
    ///   - status: The status code.
    ///   - retryAfter: The `Retry-After` header's value, if any (seconds; an HTTP date is taken as "the backoff's").
    public init(status: Int, retryAfter: String?) {
        switch status {
        case 200..<300: self = .sent(status: status)
        case 408, 429, 500..<600:
            self = .transient(status: status, retryAfter: retryAfter.flatMap(Self.seconds))
        default: self = .rejected(status: status)
        }
    }

    /// `Retry-After: SECONDS`.
    static func seconds(_ text: String) -> Duration? {
        Int(text.trimmingCharacters(in: .whitespaces)).map { Duration.seconds($0) }
    }
}
