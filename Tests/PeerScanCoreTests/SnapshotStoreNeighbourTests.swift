import Discovery
import Logging
import NIOConcurrencyHelpers
import PeerScanModel
import TestSupport
import Testing

@testable import PeerScanCore

/// A clock the test sets by hand, to the time since its start.
final class TestTime: Sendable {
    private let clock = ManualClock()
    var now: Duration {
        get { clock.now.offset }
        set { clock.advance(by: newValue - clock.now.offset) }
    }
    /// The store's clock, on this one.
    var scanClock: ScanClock { ScanClock(clock) }
}

@Suite struct SnapshotStoreNeighbourTests {
    let time = TestTime()

    func makeStore() -> SnapshotStore {
        SnapshotStore(
            isScanning: true,
            interfaces: ["eth0"],
            devices: DeviceTable(
                presence: DeviceTable.Presence(offlineAfter: .seconds(60), forgetAfter: .seconds(3600)),
                vendorOf: { $0.hasPrefix("00:00:0c") ? "Cisco Systems, Inc" : nil }
            ),
            clock: time.scanClock
        )
    }

    @Test func aNeighbourOnAScannedInterfaceIsADeviceAndOneOnAnotherIsNot() async throws {
        let store = makeStore()
        await store.apply([
            makeNeighbourInput("10.0.0.5", "00:00:0c:11:22:33", confirmed: .zero),
            makeNeighbourInput("192.168.9.9", "00:00:0c:99:99:99", confirmed: .zero, interface: "docker0"),
        ])
        let peers = await store.snapshot.items(inSection: .networks)?.compactMap(\.device) ?? []
        #expect(peers.count == 1)
        #expect(peers.first?.macAddresses == ["00:00:0c:11:22:33"])
        #expect(peers.first?.vendor == "Cisco Systems, Inc")
        #expect(await store.sequence == 1)
    }

    @Test func aSilentNeighbourGoesOfflineInOneChangesetOnAPresenceCheck() async throws {
        let store = makeStore()
        await store.apply([makeNeighbourInput("10.0.0.5", "00:00:0c:11:22:33", confirmed: .zero)])
        time.now = .seconds(30)
        await store.apply([makeNeighbourInput("10.0.0.5", nil, .failed, confirmed: .zero)])
        #expect(await store.sequence == 1, "failed, but within --offline-after: nothing changes")
        time.now = .seconds(59)
        await store.apply([.presenceCheck])
        #expect(await store.sequence == 1)
        let subscription = await store.subscribe()
        time.now = .seconds(60)
        await store.apply([.presenceCheck])
        #expect(await store.sequence == 2)
        var updates = subscription.updates.makeAsyncIterator()
        let update = try #require(await updates.next())
        #expect(update.changes.itemUpdates.count == 1 && update.changes.itemInserts.isEmpty)
        #expect(update.changes.itemUpdates.first?.item.device?.online == false)
    }

    @Test func anMDNSDeviceAndTheNeighbourOfItsAddressAreOneItem() async throws {
        let store = makeStore()
        await store.apply([
            .resolved(makeInstance("TV", host: "tv.local", addresses: ["10.0.0.7"])),
            makeNeighbourInput("10.0.0.7", "00:00:0c:77:77:77", confirmed: .zero),
        ])
        let peers = await store.snapshot.items(inSection: .networks)?.compactMap(\.device) ?? []
        #expect(peers.count == 1)
        #expect(peers.first?.hostName == "tv.local")
        #expect(peers.first?.macAddresses == ["00:00:0c:77:77:77"])
    }

    @Test func aPresenceCheckWithNothingDuePublishesNothing() async {
        let store = makeStore()
        await store.apply([makeNeighbourInput("10.0.0.5", "00:00:0c:11:22:33", confirmed: .zero)])
        for second in 1...5 {
            time.now = .seconds(second)
            await store.apply([.presenceCheck])
        }
        #expect(await store.sequence == 1)
    }
}

@Suite struct SnapshotStoreStartupTests {
    @Test func neighbourOnlyDevicesWaitForTheFirstBrowseSoThatAnMDNSHostClaimsItsMACFirst() async throws {
        let store = SnapshotStore(
            isScanning: true,
            interfaces: ["eth0"],
            devices: DeviceTable(
                presence: DeviceTable.Presence(offlineAfter: .seconds(60), forgetAfter: .seconds(3600))
            ),
            initialBrowseQuietPeriod: .zero,
            clock: ScanClock(ManualClock())
        )
        let update = Neighbour(
            address: "10.0.0.7",
            interface: "eth0",
            macAddress: "00:00:0c:77:77:77",
            state: .reachable,
            lastConfirmed: .zero
        )
        let lonely = Neighbour(
            address: "10.0.0.8",
            interface: "eth0",
            macAddress: "00:00:0c:88:88:88",
            state: .reachable,
            lastConfirmed: .zero
        )
        await store.apply([
            .discovery(.mdns(.sourceState(.running, hostName: "scanner.local"))),
            .discovery(.neighbour(.neighbourTable([update, lonely]))),
        ])
        #expect(await store.deviceCount == 0, "held while mDNS has not reported what it knows")
        await store.apply([.resolved(makeInstance("TV", host: "tv.local", addresses: ["10.0.0.7"])), .browsingSettled])
        let peers = await store.snapshot.items(inSection: .networks)?.compactMap(\.device) ?? []
        #expect(peers.map(\.hostName) == ["tv.local", nil], "the TV took its MAC; the other is a device of its own")
        #expect(peers.first?.macAddresses == ["00:00:0c:77:77:77"])
    }
}

@Suite struct SnapshotStoreScanningOnTests {
    @Test func afterScanningIsSwitchedOnNeighbourOnlyDevicesWaitForAvahiOrFiveSeconds() async throws {
        let time = TestTime()
        let store = SnapshotStore(
            isScanning: false,
            interfaces: ["eth0"],
            devices: DeviceTable(
                presence: DeviceTable.Presence(offlineAfter: .seconds(60), forgetAfter: .seconds(3600))
            ),
            clock: time.scanClock
        )
        let entry = Neighbour(
            address: "10.0.0.8",
            interface: "eth0",
            macAddress: "00:00:0c:88:88:88",
            state: .reachable,
            lastConfirmed: .zero
        )
        await store.apply([.discovery(.mdns(.sourceState(.running, hostName: "scanner.local")))])
        await store.apply([.setScanning(true, reply: nil)])
        await store.apply([.discovery(.neighbour(.neighbourTable([entry])))])
        #expect(await store.deviceCount == 0, "Avahi has not reported yet")
        time.now = .seconds(5)
        await store.apply([.presenceCheck])
        #expect(await store.deviceCount == 1, "not longer than five seconds")
        await store.apply([.setScanning(false, reply: nil)])
        await store.apply([.setScanning(true, reply: nil)])
        await store.apply([.discovery(.neighbour(.neighbourTable([entry])))])
        #expect(await store.deviceCount == 0)
        await store.apply([.browsingSettled])
        #expect(await store.deviceCount == 1, "Avahi reported what it knows: nobody claims the MAC address")
    }
}
