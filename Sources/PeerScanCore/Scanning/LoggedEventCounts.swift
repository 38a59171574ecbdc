import MonitoringLog
import Synchronization

/// How many times since start the scanner logged the events a monitoring system counts: `address conflict` and
/// `possible evil twin` (peerscand's GetStatistics). Counted where the lines are written, so a count and the log
/// always agree.
public final class LoggedEventCounts: Sendable {
    /// The counts at one moment.
    public struct Counts: Sendable, Hashable {
        /// `address conflict` lines.
        public var addressConflicts: UInt64 = 0
        /// `possible evil twin` lines.
        public var evilTwinWarnings: UInt64 = 0

        /// Counts.
        public init(addressConflicts: UInt64 = 0, evilTwinWarnings: UInt64 = 0) {
            self.addressConflicts = addressConflicts
            self.evilTwinWarnings = evilTwinWarnings
        }
    }

    private let counts = Mutex(Counts())

    /// No events counted.
    public init() {}

    /// The counts now.
    public var current: Counts { counts.withLock { $0 } }

    /// Counts the entries among `entries` that are counted events.
    /// - Complexity: O(entries).
    public func count(_ entries: [LogEntry]) {
        var conflicts: UInt64 = 0
        var twins: UInt64 = 0
        for entry in entries {
            if entry.message == .addressConflict { conflicts += 1 }
            if entry.message == .possibleEvilTwin { twins += 1 }
        }
        guard conflicts + twins > 0 else { return }
        counts.withLock {
            $0.addressConflicts += conflicts
            $0.evilTwinWarnings += twins
        }
    }
}
