// The neighbour table's limit reached by ENOBUFS: the probe rounds' datagrams the kernel had no room for, whatever the
// count of entries peerscand sees (gc_thresh3 is global across network namespaces).

import MonitoringLog
import NetworkInterfaces
import PeerScanModel
import Testing

@testable import PeerScanCore

private let small = SystemLimitSettings(cacheEntriesMax: 10, neighbourTableMax: [.ipv4: 1024, .ipv6: 1024])

@Suite struct SystemLimitNoRoomTests {
    @Test func datagramsWithNoRoomReachTheTableWhateverItsCount() {
        let check = SystemLimitCheck(settings: small)
        let counts = SystemLimitCounts(neighbourEntries: [.ipv4: 1000], neighbourNoRoom: [.ipv4: 21])
        #expect(
            check.reached(counts) == [
                SystemLimit(
                    name: "neighbour-table ipv4",
                    value: 1000,
                    setting: "net.ipv4.neigh.default.gc_thresh3=1024"
                )
            ]
        )
        #expect(check.reached(SystemLimitCounts(neighbourNoRoom: [.ipv6: 1])).map(\.name) == ["neighbour-table ipv6"])
        #expect(check.reached(SystemLimitCounts(neighbourEntries: [.ipv4: 1000], neighbourNoRoom: [.ipv4: 0])) == [])
    }

    /// In a network namespace of its own (a container, the test LAN) the kernel does not show `gc_thresh3`.
    @Test func withoutTheSettingReadableNoRoomStillReachesTheTableNamedWithoutAValue() {
        let check = SystemLimitCheck(settings: SystemLimitSettings(neighbourTableMax: [:]))
        #expect(check.reached(SystemLimitCounts(neighbourEntries: [.ipv4: 5_000])) == [])
        #expect(
            check.reached(SystemLimitCounts(neighbourEntries: [.ipv4: 993], neighbourNoRoom: [.ipv4: 7])) == [
                SystemLimit(name: "neighbour-table ipv4", value: 993, setting: "net.ipv4.neigh.default.gc_thresh3")
            ]
        )
    }

    @Test func theHostItemShowsItWhileRoundsHaveNoRoomAndTheLogSaysHowManyOnce() async {
        let store = SnapshotStore(isScanning: true, interfaces: ["lan0"], systemLimits: small)
        let full = await store.apply([.probeNoRoom([.ipv4: 21])])
        #expect(await store.hostStatus.limits.map(\.name) == ["neighbour-table ipv4"])
        #expect(
            full.logs.filter { $0.message == .systemLimitReached }.map(\.metadata) == [
                [
                    "limit": "neighbour-table ipv4", "value": "0",
                    "setting": "net.ipv4.neigh.default.gc_thresh3=1024", "estimate": "false", "enobufs": "21",
                ]
            ]
        )

        await store.apply([.probeNoRoom([:])])  // the next round had room
        #expect(await store.hostStatus.limits == [])

        let again = await store.apply([.probeNoRoom([.ipv4: 3])])
        #expect(await store.hostStatus.limits.map(\.name) == ["neighbour-table ipv4"])
        #expect(!again.logs.contains { $0.message == .systemLimitReached })  // once per limit

        await store.apply([.setScanning(false)])
        #expect(await store.hostStatus.limits == [])  // no rounds while scanning is off
    }
}
