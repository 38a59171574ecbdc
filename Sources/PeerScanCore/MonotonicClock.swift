/// The daemon's monotonic time: a `Duration` since the process first asked, on `ContinuousClock`. Presence deadlines
/// and neighbours' confirmation times are given on it.
public enum MonotonicClock {
    private static let origin = ContinuousClock.now

    /// The time now.
    @Sendable public static func now() -> Duration {
        origin.duration(to: .now)
    }
}
