/// The daemon's one clock: the store's notion of now (presence deadlines, neighbours' confirmation times) and the
/// scan service's timers run on it, so a test drives all of them with one manual clock.
public struct ScanClock: Sendable {
    private let nowSinceStart: @Sendable () -> Duration
    private let sleepFor: @Sendable (Duration) async throws -> Void

    /// A clock measuring monotonic time since its creation on `clock`.
    public init<C: Clock & Sendable>(_ clock: C) where C.Duration == Duration {
        let start = clock.now
        nowSinceStart = { start.duration(to: clock.now) }
        sleepFor = { try await clock.sleep(for: $0) }
    }

    /// The real clock (`ContinuousClock`: it keeps counting while the system sleeps).
    public static let continuous = ScanClock(ContinuousClock())

    /// The time since the clock was made.
    public func now() -> Duration { nowSinceStart() }

    /// Sleeps for `duration` on this clock; throws `CancellationError` if the task is cancelled.
    public func sleep(for duration: Duration) async throws { try await sleepFor(duration) }
}
