// The snapshot store: its two sections, one changeset per batch, the order of devices, updates that stay updates,
// and the scanning switch.

import Diffable
import Discovery
import MonitoringLog
import NetworkInterfaces
import PeerScanModel
import TestSupport
import Testing

@testable import PeerScanCore

/// A store whose `networks` section holds "Attic" (attic.local), "TV" (tv.local) and "Zed" (zed.local), each with one
/// `_http._tcp` service on eth0 over IPv4, after a published batch; the `host` item shows the configured interfaces.
private func makeStoreWithThreeDevices() async -> SnapshotStore {
    let store = makeStore(interfaces: ["eth0", "wlan0"])
    await store.apply([
        .source(.running),
        .resolved(makeInstance("Attic", host: "attic.local")),
        .resolved(makeInstance("TV", host: "tv.local", addresses: ["10.0.0.7"], txt: [TXTEntry("v", "1")])),
        .resolved(makeInstance("Zed", host: "zed.local")),
    ])
    return store
}

/// The ways a known device can change without changing its display name.
enum KnownDeviceChange: CaseIterable, CustomTestStringConvertible {
    case txt, port, newService, newAddress, newInterface

    /// The resolution that makes the change to tv.local of ``makeStoreWithThreeDevices()``.
    var resolution: ServiceInstance {
        switch self {
        case .txt: makeInstance("TV", host: "tv.local", addresses: ["10.0.0.7"], txt: [TXTEntry("v", "2")])
        case .port: makeInstance("TV", host: "tv.local", addresses: ["10.0.0.7"], port: 8080, txt: [TXTEntry("v", "1")])
        case .newService: makeInstance("TV", type: "_airplay._tcp", host: "tv.local", addresses: ["10.0.0.7"])
        case .newAddress: makeInstance("TV", host: "tv.local", ipProtocol: .ipv6, addresses: ["fe80::1%eth0"])
        case .newInterface: makeInstance("TV", host: "tv.local", interface: "wlan0", addresses: ["10.0.0.8"])
        }
    }

    var testDescription: String { "\(self)" }
}

@Suite struct SnapshotStoreTests {
    // MARK: Initial snapshot

    @Test func startsWithConfigAndAnEmptyNetworksSectionWhileScanning() async {
        let store = makeStore(isScanning: true, interfaces: ["eth0"])
        let snapshot = await store.snapshot
        #expect(snapshot.sectionIdentifiers == [.config, .networks])
        #expect(
            snapshot.items(inSection: .config) == [
                .scanning(enabled: true),
                .host(HostStatus(hostName: nil, sourceState: .connecting, interfaces: ["eth0"])),
            ]
        )
        #expect(snapshot.items(inSection: .networks) == [])
        #expect(await store.sequence == 0)
        #expect(await store.scanning)
    }

    @Test func startsWithConfigOnlyWhileNotScanning() async {
        let store = makeStore(isScanning: false)
        let snapshot = await store.snapshot
        #expect(snapshot.sectionIdentifiers == [.config])
        #expect(snapshot.items(inSection: .config) == [.scanning(enabled: false), .host(HostStatus())])
        #expect(await !store.scanning)
    }

    // MARK: Batches

    @Test func aBatchOfEventsIsOneChangeset() async throws {
        let store = makeStore()
        let outcome = try await applyBatch(
            [
                .source(.running, hostName: "me.local"),
                .resolved(makeInstance("TV", host: "tv.local", ipProtocol: .ipv4)),
                .resolved(makeInstance("TV", host: "tv.local", ipProtocol: .ipv6)),
                .resolved(makeInstance("NAS", type: "_smb._tcp", host: "nas.local", interface: "wlan0")),
            ],
            to: store
        )
        #expect(outcome.updates.map(\.sequence) == [1])
        #expect(await store.sequence == 1)
        let snapshot = await store.snapshot
        let nas = try #require(snapshot.device(hostName: "nas.local"))
        let tv = try #require(snapshot.device(hostName: "tv.local"))
        let host = HostStatus(hostName: "me.local", sourceState: .running, interfaces: [])
        var expected = ScanChangeset()
        expected.itemInserts = [
            .init(item: .device(nas), at: ItemIndexPath(section: 1, item: 0)),
            .init(item: .device(tv), at: ItemIndexPath(section: 1, item: 1)),
        ]
        expected.itemUpdates = [.init(item: .host(host), at: ItemIndexPath(section: 0, item: 1))]
        #expect(outcome.changes == expected)
    }

    @Test func sortsDevicesByDisplayNameThenIdentifierWhateverTheArrivalOrder() async throws {
        let instances = [
            makeInstance("Kitchen", host: "kitchen-1.local"),
            makeInstance("attic", host: "loft.local"),
            makeInstance("Kitchen", host: "kitchen-2.local", interface: "wlan0"),
            makeInstance("Attic", host: "attic.local"),
        ]
        let kitchens = ["kitchen-1.local", "kitchen-2.local"].sorted {
            DeviceID.make(hostName: $0) < DeviceID.make(hostName: $1)
        }
        let expected = ["attic.local"] + kitchens + ["loft.local"]  // "Attic" < "Kitchen" < "attic"
        for order in permutations(of: Array(instances.indices)) {
            let store = makeStore()
            for index in order { await store.apply([.resolved(instances[index])]) }
            let devices = await store.snapshot.devices
            #expect(devices.map(\.hostName) == expected, "arrival order \(order)")
            #expect(isSortedForDisplay(devices))
        }
    }

    @Test(arguments: KnownDeviceChange.allCases)
    func aChangeToAKnownDeviceIsOneUpdate(change: KnownDeviceChange) async throws {
        let store = await makeStoreWithThreeDevices()
        let before = try #require(await store.snapshot.device(hostName: "tv.local"))
        let outcome = try await applyBatch([.resolved(change.resolution)], to: store)
        let after = try #require(await store.snapshot.device(hostName: "tv.local"))
        #expect(after != before)
        var expected = ScanChangeset()
        expected.itemUpdates = [.init(item: .device(after), at: ItemIndexPath(section: 1, item: 1))]
        #expect(outcome.changes == expected)
    }

    @Test func aDisplayNameChangeThatReordersIsAMoveAndAnUpdate() async throws {
        let store = await makeStoreWithThreeDevices()
        let outcome = try await applyBatch(
            [.removed(makeInstanceKey("Attic")), .resolved(makeInstance("Zulu", host: "attic.local"))],
            to: store
        )
        let snapshot = await store.snapshot
        #expect(snapshot.devices.map(\.displayName) == ["TV", "Zed", "Zulu"])
        let renamed = try #require(snapshot.device(hostName: "attic.local"))
        var expected = ScanChangeset()
        expected.itemMoves = [
            .init(
                id: renamed.id,
                from: ItemIndexPath(section: 1, item: 0),
                to: ItemIndexPath(section: 1, item: 2)
            )
        ]
        expected.itemUpdates = [.init(item: .device(renamed), at: ItemIndexPath(section: 1, item: 2))]
        #expect(outcome.changes == expected)
    }

    @Test func aDisplayNameChangeThatKeepsThePlaceIsOneUpdate() async throws {
        let store = await makeStoreWithThreeDevices()
        let outcome = try await applyBatch(
            [.removed(makeInstanceKey("Attic")), .resolved(makeInstance("Basement", host: "attic.local"))],
            to: store
        )
        let renamed = try #require(await store.snapshot.device(hostName: "attic.local"))
        var expected = ScanChangeset()
        expected.itemUpdates = [.init(item: .device(renamed), at: ItemIndexPath(section: 1, item: 0))]
        #expect(outcome.changes == expected)
    }

    @Test func removingTheLastServiceDeletesTheDevice() async throws {
        let store = await makeStoreWithThreeDevices()
        let tv = DeviceID.make(hostName: "tv.local")
        let outcome = try await applyBatch([.removed(makeInstanceKey("TV"))], to: store)
        var expected = ScanChangeset()
        expected.itemDeletes = [.init(id: tv, from: ItemIndexPath(section: 1, item: 1))]
        #expect(outcome.changes == expected)
        #expect(await store.deviceCount == 2)
    }

    @Test func theHostShowsTheInterfacesBrowsedWhateverDevicesComeAndGo() async throws {
        let store = makeStore(interfaces: ["eth0"])
        let arrivals = try await applyBatch(
            [
                .resolved(makeInstance("TV", host: "tv.local", interface: "wlan0")),
                .resolved(makeInstance("NAS", host: "nas.local", interface: "eth1")),
            ],
            to: store
        )
        #expect(arrivals.changes?.itemUpdates.isEmpty == true, "devices never change the host item")
        #expect(await store.snapshot.hostStatus?.interfaces == ["eth0"])
        let departure = try await applyBatch(
            [.discovery(.mdns(.serviceRemoved(makeInstanceKey("TV", interface: "wlan0"))))],
            to: store
        )
        #expect(departure.changes?.itemUpdates.isEmpty == true)

        // An interface went up: one update of the host item, and a repeat of the same set changes nothing.
        let up = try await applyBatch([.discovery(.mdns(.browsedInterfaces(["eth0", "wlan0"])))], to: store)
        #expect(up.changes?.itemUpdates.map(\.item) == [.host(HostStatus(interfaces: ["eth0", "wlan0"]))])
        let same = try await applyBatch([.discovery(.mdns(.browsedInterfaces(["eth0", "wlan0"])))], to: store)
        #expect(same.updates.isEmpty)
        #expect(await store.hostStatus.interfaces == ["eth0", "wlan0"])
    }

    static let batchesThatChangeNothing: [(String, [StoreInput])] = [
        ("an empty batch", []),
        ("the same resolution again", [.resolved(makeInstance("TV", host: "tv.local", txt: [TXTEntry("v", "1")]))]),
        (
            "the same TXT in another order and case",
            [
                .resolved(makeInstance("TV", host: "TV.local.", txt: [TXTEntry("v", "1"), TXTEntry("V", "9")]))
            ]
        ),
        ("the removal of an unknown instance", [.removed(makeInstanceKey("TV", interface: "wlan0"))]),
        ("browsing settled without a resync", [.browsingSettled]),
        ("the same source state", [.source(.running)]),
        ("scanning on while on", [.setScanning(true)]),
        ("a deadline without a resync", [.resyncDeadline(generation: 0)]),
        (
            "a resolution removed in the same batch",
            [
                .resolved(makeInstance("Radio", host: "radio.local")), .removed(makeInstanceKey("Radio")),
            ]
        ),
    ]

    @Test(arguments: batchesThatChangeNothing)
    func aBatchThatChangesNothingPublishesNothing(label: String, batch: [StoreInput]) async throws {
        let store = makeStore()
        await store.apply([
            .source(.running),
            .resolved(makeInstance("TV", host: "tv.local", txt: [TXTEntry("v", "1")])),
        ])
        let before = await store.snapshot
        let outcome = try await applyBatch(batch, to: store)
        #expect(outcome.updates.isEmpty)
        #expect(outcome.effects == StoreEffects())
        #expect(await store.sequence == 1)
        #expect(await store.snapshot == before)
    }

    // MARK: Scanning switch

    @Test func switchingScanningOffDeletesTheNetworksSectionAndStopsBrowsing() async throws {
        let store = await makeStoreWithThreeDevices()
        let devices = await store.snapshot.devices
        let outcome = try await applyBatch([.setScanning(false)], to: store)
        #expect(
            outcome.effects
                == StoreEffects(
                    browsing: false,
                    persistScanning: false,
                    logs: [LogEntry(.scanningSwitched, ["enabled": "false"])]
                )
        )
        var expected = ScanChangeset()
        expected.sectionDeletes = [.init(id: .networks, from: 1)]
        expected.itemDeletes = devices.enumerated().map { index, device in
            .init(id: device.id, from: ItemIndexPath(section: 1, item: index))
        }
        expected.itemUpdates = [.init(item: .scanning(enabled: false), at: ItemIndexPath(section: 0, item: 0))]
        #expect(outcome.changes == expected)
        #expect(await store.snapshot.sectionIdentifiers == [.config])
        #expect(await store.deviceCount == 0)
        #expect(await !store.scanning)

        let late = try await applyBatch([.resolved(makeInstance("TV", host: "tv.local"))], to: store)
        #expect(late.updates.isEmpty, "results are ignored while scanning is off")
    }

    @Test func switchingScanningOffKeepsTheInterfacesBrowsed() async throws {
        let store = makeStore(interfaces: ["eth0"])
        await store.apply([.resolved(makeInstance("TV", host: "tv.local"))])
        let outcome = try await applyBatch([.setScanning(false)], to: store)
        #expect(outcome.changes?.itemUpdates.contains { $0.item.id == DeviceID.host } == false)
        #expect(await store.hostStatus.interfaces == ["eth0"])
    }

    @Test func switchingScanningBackOnRestoresTheSectionAndTheSameDevices() async throws {
        let store = await makeStoreWithThreeDevices()
        let identifiers = await store.snapshot.itemIdentifiers(inSection: .networks)
        await store.apply([.setScanning(false)])

        let outcome = try await applyBatch([.setScanning(true)], to: store)
        #expect(
            outcome.effects
                == StoreEffects(
                    browsing: true,
                    persistScanning: true,
                    logs: [LogEntry(.scanningSwitched, ["enabled": "true"])]
                )
        )
        var expected = ScanChangeset()
        expected.sectionInserts = [.init(id: .networks, at: 1)]
        expected.itemUpdates = [.init(item: .scanning(enabled: true), at: ItemIndexPath(section: 0, item: 0))]
        #expect(outcome.changes == expected)

        await store.apply([
            .resolved(makeInstance("Zed", host: "zed.local")),
            .resolved(makeInstance("TV", host: "tv.local")),
            .resolved(makeInstance("Attic", host: "attic.local")),
        ])
        #expect(await store.snapshot.itemIdentifiers(inSection: .networks) == identifiers)
    }

    @Test func setScanningRepliesWithTheSequenceAfterTheChange() async {
        let store = await makeStoreWithThreeDevices()
        let reply = Box<UInt64?>(nil)
        await store.apply([.setScanning(false, reply: { reply.value = $0 })])
        #expect(reply.value == 2)
        #expect(await store.sequence == 2)

        let replies = Box<[UInt64]>([])
        let effects = await store.apply([
            .setScanning(false, reply: { sequence in replies.value.append(sequence) }),
            .setScanning(false, reply: { sequence in replies.value.append(sequence) }),
        ])
        #expect(replies.value == [2, 2], "nothing changed")
        #expect(effects == StoreEffects())
    }

    @Test func repliesOnlyOnceTheWholeBatchIsApplied() async {
        let store = makeStore(isScanning: true)
        let reply = Box<UInt64?>(nil)
        await store.apply([
            .setScanning(true, reply: { reply.value = $0 }),
            .resolved(makeInstance("TV", host: "tv.local")),
        ])
        #expect(reply.value == 1)
        #expect(await store.snapshot.device(hostName: "tv.local") != nil)
    }

    // Discovery events in a batch count if the source was browsing when the batch began: its browsing only changes
    // once the batch's effects are carried out.
    @Test func eventsCountIfTheSourceWasBrowsingWhenTheBatchBegan() async {
        let off = makeStore(isScanning: false)
        await off.apply([.setScanning(true), .resolved(makeInstance("TV", host: "tv.local"))])
        #expect(await off.snapshot.device(hostName: "tv.local") == nil, "a stale event of a source not browsing")

        let on = makeStore(isScanning: true)
        await on.apply([.setScanning(false), .resolved(makeInstance("TV", host: "tv.local")), .setScanning(true)])
        #expect(await on.snapshot.device(hostName: "tv.local") != nil, "the source browsed throughout")
    }

    // The source never stopped browsing, so it will not report the devices again: the store must not forget them.
    @Test func switchingOffAndOnInOneBatchKeepsTheDevices() async {
        let store = await makeStoreWithThreeDevices()
        let effects = await store.apply([.setScanning(false), .setScanning(true)])
        #expect(effects.browsing != false)
        #expect(await store.deviceCount == 3)
    }
}
