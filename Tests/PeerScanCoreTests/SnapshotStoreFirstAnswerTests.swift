// The first answer of a fresh daemon: quick where there is nothing to wait for (no Avahi), and already right where a
// host the registry knows by its mDNS name answers the kernel before its records arrive.

import Discovery
import PeerScanModel
import TestSupport
import Testing

@testable import PeerScanCore

@Suite(.timeLimit(.minutes(1))) struct SnapshotStoreFirstAnswerTests {
    let time = TestTime()
    let printerMAC = "52:54:00:aa:bb:01"
    let printerID = DeviceID.make(hostName: "printer.local")

    /// A store that waits for the first browse (quiet for a second), with the printer known from an earlier run: its
    /// host name and MAC address bound to one device.
    func makeStore() -> SnapshotStore {
        SnapshotStore(
            isScanning: true,
            interfaces: ["eth0"],
            devices: DeviceTable(
                presence: DeviceTable.Presence(offlineAfter: .seconds(60), forgetAfter: .seconds(3600)),
                identities: DeviceIdentities(bindings: [
                    .hostName("printer.local"): printerID, .macAddress(printerMAC): printerID,
                ])
            ),
            mdns: MDNSHostTable(settles: true),
            initialBrowseQuietPeriod: .seconds(1),
            clock: time.scanClock
        )
    }

    func devices(_ store: SnapshotStore) async -> [Device] {
        await store.snapshot.items(inSection: .networks)?.compactMap(\.device) ?? []
    }

    @Test func withoutAvahiItWaitsOnlyUntilTheNeighbourTableIsQuiet() async {
        let store = makeStore()
        let down = await store.apply([.source(.connecting)])
        #expect(await !store.hasInitialBrowseSettled)
        #expect(down.checkAfter == .seconds(1), "a second for the kernel's answers, not the time limit")
        time.now = .milliseconds(600)
        let answered = await store.apply([makeNeighbourInput("10.0.0.9", "52:54:00:aa:bb:09")])
        #expect(answered.checkAfter == .seconds(1), "an answer just now")
        time.now = .milliseconds(1600)
        let settled = await store.apply([.presenceCheck])
        #expect(await store.hasInitialBrowseSettled)
        #expect(settled.logs.contains { $0.metadata["reason"] == "source-down" })
        #expect(await devices(store).map(\.macAddresses) == [["52:54:00:aa:bb:09"]], "the neighbour is in it")
    }

    @Test func avahiComingUpMeanwhileIsWaitedFor() async {
        let store = makeStore()
        await store.apply([.source(.connecting)])
        await store.apply([.source(.running)])
        time.now = .seconds(2)
        await store.apply([.presenceCheck])
        #expect(await !store.hasInitialBrowseSettled, "its browse has not settled")
        await store.apply([.browsingSettled])
        #expect(await store.hasInitialBrowseSettled)
    }

    @Test func aHostKnownByItsNameIsAwaitedSoTheFirstSnapshotNamesIt() async {
        let store = makeStore()
        await store.apply([.source(.running), makeNeighbourInput("10.0.0.10", printerMAC), .browsingSettled])
        time.now = .seconds(2)
        await store.apply([.presenceCheck])
        #expect(await !store.hasInitialBrowseSettled, "the printer answered the kernel; its records are awaited")
        #expect(await devices(store).isEmpty)
        await store.apply([.resolved(makeInstance("Printer", host: "printer.local", addresses: ["10.0.0.10"]))])
        time.now = .seconds(3)
        await store.apply([.presenceCheck])
        #expect(await store.hasInitialBrowseSettled)
        let listed = await devices(store)
        #expect(listed.map(\.hostName) == ["printer.local"], "named, not a bare MAC address")
        #expect(listed.first?.macAddresses == [printerMAC])
        #expect(listed.first?.services.map(\.type) == ["_http._tcp"])
    }

    @Test func theTimeLimitEndsTheWaitForAKnownHost() async {
        let store = makeStore()
        await store.apply([.source(.running), makeNeighbourInput("10.0.0.10", printerMAC), .browsingSettled])
        await store.apply([.initialBrowseDeadline])
        #expect(await store.hasInitialBrowseSettled)
        #expect(await devices(store).map(\.macAddresses) == [[printerMAC]], "listed by its MAC address after all")
    }

    @Test func aMACAddressKnownWithoutAHostNameIsNotAwaited() async {
        let store = makeStore()
        await store.apply([.source(.running), makeNeighbourInput("10.0.0.9", "52:54:00:aa:bb:09"), .browsingSettled])
        time.now = .seconds(1)
        await store.apply([.presenceCheck])
        #expect(await store.hasInitialBrowseSettled)
    }
}
