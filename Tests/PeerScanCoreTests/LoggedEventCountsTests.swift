import MonitoringLog
import PeerScanCore
import Testing

@Suite struct LoggedEventCountsTests {
    @Test func onlyAddressConflictsAndEvilTwinsAreCounted() {
        let counts = LoggedEventCounts()
        counts.count([
            LogEntry(.addressConflict, ["address": "10.0.0.1"]),
            LogEntry(.possibleEvilTwin),
            LogEntry(.newDevice),
        ])
        counts.count([LogEntry(.addressConflict)])
        #expect(counts.current == LoggedEventCounts.Counts(addressConflicts: 2, evilTwinWarnings: 1))
    }
}
