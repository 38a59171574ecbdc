import NIOConcurrencyHelpers

/// A clock the benchmark sets: the store's now. Nothing sleeps on it.
final class SimulatedClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let current = NIOLockedValueBox(Duration.zero)
    var now: Instant { Instant(offset: current.withLockedValue { $0 }) }
    var minimumResolution: Duration { .zero }
    func set(_ time: Duration) { current.withLockedValue { $0 = time } }
    func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws { throw CancellationError() }
}
