import Synchronization

/// The durations of the probe rounds since start, as a histogram of fixed buckets: how many rounds took at most each
/// bound (cumulative), their sum and their count — what Prometheus's histogram holds, so an exporter copies it as is.
///
/// ## Performance
/// Recording a round is O(buckets) (10); memory is fixed whatever the number of rounds.
public struct RoundDurations: Sendable, Hashable {
    /// The buckets' upper bounds, in seconds, increasing; a last bucket without bound (`+Inf`) is ``count``. A /24 is
    /// swept in about half a second at the default rate and a /22 in about two; a round paced by a full neighbour
    /// table or a low `--probe-rate` takes longer.
    public static let bounds: [Double] = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60]

    /// For each of ``bounds``, the rounds that took at most that long (cumulative).
    public private(set) var cumulativeCounts: [UInt64] = Array(repeating: 0, count: bounds.count)
    /// The sum of the durations, in seconds.
    public private(set) var sum: Double = 0
    /// The rounds recorded.
    public private(set) var count: UInt64 = 0

    /// No rounds.
    public init() {}

    /// Records a round.
    /// - Parameter duration: How long it took.
    /// - Complexity: O(buckets).
    public mutating func record(_ duration: Duration) {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
        for (index, bound) in Self.bounds.enumerated() where seconds <= bound { cumulativeCounts[index] += 1 }
        sum += seconds
        count += 1
    }
}

/// ``RoundDurations`` shared between the service, which records, and whoever reads them (peerscand's GetStatistics).
final class RoundDurationsBox: Sendable {
    private let durations = Mutex(RoundDurations())

    var current: RoundDurations { durations.withLock { $0 } }

    func record(_ duration: Duration) { durations.withLock { $0.record(duration) } }
}
