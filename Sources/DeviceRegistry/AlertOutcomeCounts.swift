import Synchronization

/// How many alerts each destination took, had refused or lost since start (GetStatistics's `alerts`, the exporter's
/// `peerscan_alerts_total`): counted by the outbox where it logs or removes them, read from any thread.
public final class AlertOutcomeCounts: Sendable {
    /// What became of an alert for a destination.
    public enum Outcome: String, Sendable, CaseIterable, Comparable {
        /// The receiver took it.
        case sent
        /// The receiver refused it for good (`alert rejected`).
        case rejected
        /// Removed without being sent: expired or the outbox full (`alert dropped`).
        case dropped

        public static func < (lhs: Outcome, rhs: Outcome) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }
    }

    /// One destination's count of one outcome.
    public struct Count: Sendable, Hashable {
        /// The destination's name (without secrets).
        public var destination: String
        public var outcome: Outcome
        public var count: UInt64

        /// A count.
        public init(destination: String, outcome: Outcome, count: UInt64) {
            self.destination = destination
            self.outcome = outcome
            self.count = count
        }
    }

    private let counts = Mutex([String: [Outcome: UInt64]]())

    /// Nothing counted.
    public init() {}

    /// Counts one alert's `outcome` for `destination`.
    public func count(_ outcome: Outcome, for destination: String) {
        counts.withLock { $0[destination, default: [:]][outcome, default: 0] += 1 }
    }

    /// Every count now, by destination, then outcome.
    public var current: [Count] {
        counts.withLock { counts in
            counts.keys.sorted().flatMap { destination in
                counts[destination, default: [:]].sorted { $0.key < $1.key }.map {
                    Count(destination: destination, outcome: $0.key, count: $0.value)
                }
            }
        }
    }
}
