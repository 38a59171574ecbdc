// The system's limits: the pure check against counts, the settings read from files, and the store's `host` item and
// log lines fed by what its tables follow.

import Discovery
import Foundation
import MonitoringLog
import NetworkInterfaces
import PeerScanModel
import Testing

@testable import PeerScanCore

private func cache(_ interface: String, _ ipProtocol: IPProtocol = .ipv4) -> SystemLimitCounts.CacheKey {
    SystemLimitCounts.CacheKey(interface: interface, ipProtocol: ipProtocol)
}

private let small = SystemLimitSettings(cacheEntriesMax: 10, neighbourTableMax: [.ipv4: 3, .ipv6: 2])

@Suite struct SystemLimitCheckTests {
    @Test func nothingIsReachedBelowTheLimits() {
        let counts = SystemLimitCounts(
            services: [cache("eth0"): 3],  // 9 records
            neighbourEntries: [.ipv4: 2, .ipv6: 1]
        )
        #expect(SystemLimitCheck(settings: small).reached(counts) == [])
    }

    @Test func aCacheIsFullAtThreeRecordsPerServicePlusTheAddressRecords() {
        let counts = SystemLimitCounts(
            services: [cache("eth0"): 3, cache("eth0", .ipv6): 3, cache("eth1"): 2],
            addressRecords: [cache("eth0"): 1, cache("eth1"): 5]
        )
        #expect(
            SystemLimitCheck(settings: small).reached(counts) == [
                SystemLimit(name: "avahi-cache eth0 ipv4", value: 10, setting: "cache-entries-max=10"),
                SystemLimit(name: "avahi-cache eth1 ipv4", value: 11, setting: "cache-entries-max=10"),
            ]
        )
    }

    @Test func theStockCacheIsFullAtTheCeilingMeasuredOnTheStressLAN() {
        // Stock cache-entries-max (4,096): the cache stopped at 1,168 services on 293 hosts (an A and an AAAA record
        // each); with 1,120 services on 280 hosts everything was followed.
        let check = SystemLimitCheck(settings: SystemLimitSettings())
        let full = SystemLimitCounts(services: [cache("lan0"): 1_168], addressRecords: [cache("lan0"): 586])
        #expect(
            check.reached(full) == [
                SystemLimit(name: "avahi-cache lan0 ipv4", value: 4_090, setting: "cache-entries-max=4096")
            ]
        )
        let followed = SystemLimitCounts(services: [cache("lan0"): 1_120], addressRecords: [cache("lan0"): 560])
        #expect(check.reached(followed) == [])
        let justBelow = SystemLimitCounts(services: [cache("lan0"): 1_000], addressRecords: [cache("lan0"): 1_014])
        #expect(check.reached(justBelow) == [])  // 4,014: one record short of the margin
        let atTheMargin = SystemLimitCounts(services: [cache("lan0"): 1_000], addressRecords: [cache("lan0"): 1_015])
        #expect(check.reached(atTheMargin).map(\.value) == [4_015])
    }

    @Test func eachNeighbourTableIsCheckedAgainstItsOwnLimit() {
        let counts = SystemLimitCounts(neighbourEntries: [.ipv4: 2, .ipv6: 2])
        #expect(
            SystemLimitCheck(settings: small).reached(counts) == [
                SystemLimit(name: "neighbour-table ipv6", value: 2, setting: "net.ipv6.neigh.default.gc_thresh3=2")
            ]
        )
    }

    @Test func aProtocolWithoutATableIsNotChecked() {
        let settings = SystemLimitSettings(neighbourTableMax: [.ipv4: 3])
        let limits = SystemLimitCheck(settings: settings).reached(SystemLimitCounts(neighbourEntries: [.ipv6: 5_000]))
        #expect(limits == [])
    }

    @Test func onlyTheAvahiCacheIsAnEstimate() {
        #expect(SystemLimit(name: "avahi-cache eth0 ipv4", value: 1, setting: "s").isEstimate)
        #expect(!SystemLimit(name: "neighbour-table ipv4", value: 1, setting: "s").isEstimate)
    }
}

@Suite struct SystemLimitSettingsTests {
    @Test func readsCacheEntriesMaxFromTheServerSectionOnly() throws {
        let text = """
            [server]
            #cache-entries-max=1
            use-ipv6=yes
            cache-entries-max = 8192
            [reflector]
            cache-entries-max=2
            """
        #expect(try SystemLimitSettings.cacheEntriesMax(inAvahiConfiguration: text) == 8192)
        #expect(
            try SystemLimitSettings.cacheEntriesMax(inAvahiConfiguration: "[server]\n#cache-entries-max=1\n") == nil
        )
    }

    @Test func rejectsACacheEntriesMaxThatIsNotANumber() {
        #expect(throws: SystemLimitReadError.self) {
            try SystemLimitSettings.cacheEntriesMax(inAvahiConfiguration: "[server]\ncache-entries-max=lots\n")
        }
    }

    @Test func readsTheFilesAndKeepsDefaultsForWhatIsAbsentOrUnreadable() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("limits-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }  // clean-up only
        try "[server]\ncache-entries-max=512\n".write(
            to: directory.appendingPathComponent("avahi.conf"),
            atomically: true,
            encoding: .utf8
        )
        try "2048\n".write(to: directory.appendingPathComponent("ipv4"), atomically: true, encoding: .utf8)
        let (settings, problems) = SystemLimitSettings.read(
            avahiConfiguration: directory.appendingPathComponent("avahi.conf").path,
            neighbourTableMax: { directory.appendingPathComponent($0.rawValue).path }
        )
        #expect(settings == SystemLimitSettings(cacheEntriesMax: 512, neighbourTableMax: [.ipv4: 2048]))
        #expect(problems == [])

        try "none\n".write(to: directory.appendingPathComponent("ipv6"), atomically: true, encoding: .utf8)
        let (fallback, errors) = SystemLimitSettings.read(
            avahiConfiguration: directory.appendingPathComponent("absent.conf").path,
            neighbourTableMax: { directory.appendingPathComponent($0.rawValue).path }
        )
        #expect(fallback == SystemLimitSettings(cacheEntriesMax: 4096, neighbourTableMax: [.ipv4: 2048, .ipv6: 1024]))
        #expect(errors.map(\.path) == [directory.appendingPathComponent("ipv6").path])
    }
}

@Suite struct SnapshotStoreLimitTests {
    @Test func theHostItemShowsANeighbourTableReachedAndItIsLoggedOnce() async throws {
        let store = SnapshotStore(isScanning: true, interfaces: ["lan0"], systemLimits: small)
        let two = await store.apply([
            .discovery(
                .neighbour(
                    .neighbourTable([
                        makeNeighbour("10.0.0.1", "02:00:00:00:00:01"), makeNeighbour("10.0.0.2", "02:00:00:00:00:02"),
                    ])
                )
            )
        ])
        #expect(await store.hostStatus.limits == [])
        #expect(!two.logs.contains { $0.message == .systemLimitReached })

        let three = await store.apply([
            .discovery(.neighbour(.neighbourUpdated(makeNeighbour("10.0.0.3", "02:00:00:00:00:03"))))
        ])
        let reached = SystemLimit(
            name: "neighbour-table ipv4",
            value: 3,
            setting: "net.ipv4.neigh.default.gc_thresh3=3"
        )
        #expect(await store.hostStatus.limits == [reached])
        #expect(await store.snapshot.hostStatus?.limits == [reached])
        #expect(
            three.logs.filter { $0.message == .systemLimitReached }.map(\.metadata) == [
                [
                    "limit": "neighbour-table ipv4", "value": "3", "setting": "net.ipv4.neigh.default.gc_thresh3=3",
                    "estimate": "false", "enobufs": "0",
                ]
            ]
        )

        let four = await store.apply([
            .discovery(.neighbour(.neighbourUpdated(makeNeighbour("10.0.0.4", "02:00:00:00:00:04"))))
        ])
        #expect(await store.hostStatus.limits.map(\.value) == [4])
        #expect(!four.logs.contains { $0.message == .systemLimitReached })  // once per limit

        await store.apply([.setScanning(false)])
        #expect(await store.hostStatus.limits == [])  // nothing followed while scanning is off
    }

    @Test func theAvahiCacheIsEstimatedFromTheServicesAndAddressRecordsFollowed() async throws {
        let store = SnapshotStore(isScanning: true, interfaces: ["eth0"], systemLimits: small)
        await store.apply([
            .resolved(makeInstance("a", host: "a.local")), .resolved(makeInstance("b", host: "b.local")),
        ])
        #expect(await store.hostStatus.limits == [])  // 6 records

        let outcome = await store.apply([
            .resolved(makeInstance("c", host: "c.local")),
            .discovery(
                .mdns(
                    .addressAdded(
                        HostAddress(hostName: "c.local", address: "10.0.0.3", interface: "eth0", ipProtocol: .ipv4)
                    )
                )
            ),
        ])
        let limits = await store.hostStatus.limits
        #expect(limits.map(\.name) == ["avahi-cache eth0 ipv4"])
        #expect(limits.first?.value == 10)
        #expect(outcome.logs.first { $0.message == .systemLimitReached }?.metadata["estimate"] == "true")
    }
}
