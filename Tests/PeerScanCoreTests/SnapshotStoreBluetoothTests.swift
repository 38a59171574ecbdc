// Bluetooth through the store: an advertisement is a device in one changeset, its away deadline is asked for as a
// check, and an ephemeral device never reaches the registry's records.

import Discovery
import Foundation
import NIOConcurrencyHelpers
import PeerScanModel
import TestSupport
import Testing

@testable import PeerScanCore

private func advertised(
    _ address: String,
    _ type: BluetoothAddressType,
    at time: Duration,
    isTemporary: Bool = false
) -> StoreInput {
    .discovery(
        .bluetooth(
            .advertised(
                BluetoothAdvertisement(
                    adapter: "hci0",
                    address: address,
                    addressType: type,
                    name: "Tag",
                    appearance: nil,
                    manufacturerData: [],
                    serviceUUIDs: [],
                    rssi: -55,
                    lastSeen: time,
                    isTemporary: isTemporary
                )
            )
        )
    )
}

/// A store on `clock` whose registry records go to `recorded`.
private func makeStore(
    clock: ManualClock,
    recorded: NIOLockedValueBox<[DeviceRecords]>,
    presence: DeviceTable.Presence = .immediate,
    bluetooth: BluetoothSettings = BluetoothSettings(away: .seconds(30))
) -> SnapshotStore {
    SnapshotStore(
        isScanning: true,
        interfaces: [],
        devices: DeviceTable(presence: presence, bluetooth: bluetooth),
        clock: ScanClock(clock),
        recorders: StoreRecorders(devices: { records in recorded.withLockedValue { $0.append(records) } })
    )
}

@Suite struct SnapshotStoreBluetoothTests {
    @Test func anAdvertiserIsADeviceAndGoesOfflineAtTheCheckItAskedFor() async throws {
        let clock = ManualClock()
        let recorded = NIOLockedValueBox<[DeviceRecords]>([])
        let store = makeStore(
            clock: clock,
            recorded: recorded,
            presence: DeviceTable.Presence(offlineAfter: .seconds(60), forgetAfter: .seconds(600))
        )
        let inserted = try await applyBatch([advertised("00:1a:7d:da:71:13", .public, at: .zero)], to: store)
        let device = try #require(inserted.changes?.itemInserts.first?.item.device)
        #expect(device.bluetooth?.bars == 4 && device.online)
        #expect(inserted.effects.checkAfter == .seconds(30), "the away deadline is checked for")
        clock.advance(by: .seconds(30))
        let offline = try await applyBatch([.presenceCheck], to: store)
        #expect(offline.changes?.itemUpdates.first?.item.device?.online == false)
        #expect(recorded.withLockedValue { $0.flatMap(\.devices).map(\.id) } == [device.id, device.id])
    }

    @Test func anEphemeralDeviceIsListedButNeverRecorded() async throws {
        let clock = ManualClock()
        let recorded = NIOLockedValueBox<[DeviceRecords]>([])
        let store = makeStore(clock: clock, recorded: recorded)
        let inserted = try await applyBatch([advertised("4d:11:22:33:44:55", .resolvablePrivate, at: .zero)], to: store)
        #expect(inserted.changes?.itemInserts.first?.item.device?.bluetooth?.isEphemeral == true)
        clock.advance(by: .seconds(30))
        let gone = try await applyBatch([.presenceCheck], to: store)
        #expect(gone.changes?.itemDeletes.count == 1, "removed, not kept offline")
        #expect(recorded.withLockedValue { $0.flatMap(\.devices) }.isEmpty)
        #expect(recorded.withLockedValue { $0.flatMap(\.identityChanges) }.isEmpty)
    }
}

@Suite struct SnapshotStoreBluetoothCapTests {
    @Test func theCapIsInTheHostItemAndLoggedOnceAndNoAdvertiserNotAdmittedIsRecorded() async throws {
        let clock = ManualClock()
        let recorded = NIOLockedValueBox<[DeviceRecords]>([])
        let store = makeStore(
            clock: clock,
            recorded: recorded,
            bluetooth: BluetoothSettings(away: .seconds(30), maxDevices: 3)
        )
        let addresses = (0..<6).map { String(format: "c4:00:00:00:00:%02x", $0) }
        let first = await store.apply(
            addresses.prefix(3).map { advertised($0, .randomStatic, at: .zero, isTemporary: true) }
        )
        #expect(await store.hostStatus.limits.isEmpty, "three listed: the cap, not past it")
        #expect(!first.logs.contains { $0.message == .systemLimitReached })
        let full = await store.apply(
            addresses.suffix(3).map { advertised($0, .randomStatic, at: .zero, isTemporary: true) }
        )
        #expect(await store.hostStatus.limits.map(\.name) == ["bluetooth-devices"])
        #expect(
            full.logs.filter { $0.message == .systemLimitReached }.map(\.metadata) == [
                [
                    "limit": "bluetooth-devices", "value": "3", "setting": "--bluetooth-max-devices=3",
                    "estimate": "false",
                ]
            ]
        )
        #expect(!full.logs.contains { $0.message == .newDevice })
        await store.apply([advertised("c4:00:00:00:00:09", .randomStatic, at: .zero, isTemporary: true)])
        #expect(recorded.withLockedValue { $0.flatMap(\.devices) }.isEmpty, "nothing for the registry")
        #expect(recorded.withLockedValue { $0.flatMap(\.identityChanges) }.isEmpty)
        await store.apply([.discovery(.bluetooth(.adapters([])))])  // the controller went, every object with it
        clock.advance(by: .seconds(31))  // not admitted: gone after --bluetooth-away
        await store.apply([.presenceCheck])
        #expect(await store.hostStatus.limits.isEmpty)
    }
}
