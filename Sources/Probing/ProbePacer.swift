/// The packets-per-second ceiling of probing on the real clock: a ``TokenBucket`` that every datagram, echo request
/// and forced probe of a round takes a token from, and the waits it asks for. One pacer lives as long as the
/// ``ProbeService``, so the ceiling holds across the parts of a round and across rounds.
///
/// The bucket holds a fiftieth of a second's datagrams (at least one): a sender that finds it empty sleeps until it
/// is full again, so a sweep wakes about 50 times a second, not once per datagram, and bursts at most 20 ms' worth.
struct ProbePacer: Sendable {
    /// Datagrams per second, at most.
    var rate: Int { bucket.rate }
    private var bucket: TokenBucket
    private let clock = ContinuousClock()
    private let origin: ContinuousClock.Instant

    /// A pacer whose bucket is full.
    ///
    /// - Parameter rate: Datagrams per second; at least 1 (precondition).
    init(rate: Int) {
        origin = clock.now
        bucket = TokenBucket(rate: rate, capacity: max(rate / 50, 1), now: .zero)
    }

    /// Waits until a datagram may be sent, and counts it.
    ///
    /// - Returns: False if the task was cancelled meanwhile (nothing may be sent then: shutting down).
    mutating func next() async -> Bool {
        while true {
            let now = origin.duration(to: clock.now)
            guard bucket.take(at: now) != .zero else { return true }
            let refill = bucket.waitForTokens(bucket.capacity, at: now)
            do { try await clock.sleep(for: refill) } catch { return false }
        }
    }
}
