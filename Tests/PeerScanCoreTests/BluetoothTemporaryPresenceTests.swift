import Discovery
import PeerScanModel
import Testing

@testable import PeerScanCore

private let publicAddress = "00:1a:7d:da:71:13"
private let privateAddress = "5f:1e:e9:b7:7e:5a"  // resolvable private (top bits 01), no key resolves it

private func temporaryAdvertisement(
    _ address: String,
    _ type: BluetoothAddressType,
    adapter: String = "hci0",
    at time: Duration
) -> BluetoothObservation {
    .advertised(
        BluetoothAdvertisement(
            adapter: adapter,
            address: address,
            addressType: type,
            name: "Tag",
            appearance: nil,
            manufacturerData: [],
            serviceUUIDs: [],
            rssi: nil,
            lastSeen: time,
            isTemporary: true
        )
    )
}

private func makeTable() -> DeviceTable {
    DeviceTable(
        presence: DeviceTable.Presence(offlineAfter: .seconds(60), forgetAfter: .seconds(600)),
        vendorOf: { _ in nil },
        identities: .init(),
        bluetooth: BluetoothSettings(away: .seconds(120), admitAfter: .zero)  // kept at once (admission: elsewhere)
    )
}

/// A temporary BlueZ device (neither paired nor bonded) is heard while bluetoothd holds its object — bluetoothd
/// restarts the object's timer on every advertisement report, changed or not, and removes it after
/// `TemporaryTimeout` without one — so it stays online however long its properties stay the same, and its away
/// time counts from the object's removal.
@Suite struct BluetoothTemporaryPresenceTests {
    @Test func onlineWhileBlueZHoldsItsObjectOfflineTheAwayTimeAfterItsRemoval() throws {
        var table = makeTable()
        table.observe(bluetooth: temporaryAdvertisement(publicAddress, .public, at: .seconds(1)), now: .seconds(1))
        #expect(table.takeChanges(now: .seconds(1)).changes.first?.device?.online == true)
        #expect(table.nextDeadline() == nil, "no deadline while the object exists")
        // Long past the away time without a report: still heard.
        #expect(table.takeChanges(now: .seconds(1_000)).changes.isEmpty)
        table.observe(bluetooth: .removed(adapter: "hci0", address: publicAddress), now: .seconds(1_000))
        #expect(table.takeChanges(now: .seconds(1_000)).changes.isEmpty, "still online within the away time")
        #expect(table.nextDeadline() == .seconds(1_120))
        #expect(table.takeChanges(now: .seconds(1_119)).changes.isEmpty)
        let (changes, events) = table.takeChanges(now: .seconds(1_120))
        let device = try #require(changes.first?.device)
        #expect(!device.online && device.presenceReason?.description == "unanswered asked=ble")
        guard case .offline? = events.first else {
            Issue.record("\(events)")
            return
        }
        // Its object back: online again.
        table.observe(
            bluetooth: temporaryAdvertisement(publicAddress, .public, at: .seconds(1_200)),
            now: .seconds(1_200)
        )
        #expect(table.takeChanges(now: .seconds(1_200)).changes.first?.device?.online == true)
    }

    @Test func anEphemeralDeviceStaysWhileItsObjectExistsAndGoesTheAwayTimeAfterItsRemoval() throws {
        var table = makeTable()
        table.observe(
            bluetooth: temporaryAdvertisement(privateAddress, .resolvablePrivate, at: .seconds(1)),
            now: .seconds(1)
        )
        let listed = try #require(table.takeChanges(now: .seconds(1)).changes.first?.device)
        #expect(listed.bluetooth?.isEphemeral == true && listed.online)
        #expect(table.takeChanges(now: .seconds(500)).changes.isEmpty)
        table.observe(bluetooth: .removed(adapter: "hci0", address: privateAddress), now: .seconds(500))
        #expect(table.takeChanges(now: .seconds(619)).changes.isEmpty)
        let gone = try #require(table.takeChanges(now: .seconds(620)).changes.first)
        #expect(gone.device == nil, "an ephemeral device is removed, not kept offline")
    }

    @Test func itsAdapterGoingCountsAsTheRemovalAnotherAdaptersRemovalDoesNot() throws {
        var table = makeTable()
        table.observe(bluetooth: temporaryAdvertisement(publicAddress, .public, at: .seconds(1)), now: .seconds(1))
        _ = table.takeChanges(now: .seconds(1))
        table.observe(bluetooth: .removed(adapter: "hci1", address: publicAddress), now: .seconds(10))
        #expect(table.nextDeadline() == nil, "hci1's object is not the one heard")
        let hci0 = BluetoothAdapter(name: "hci0", address: "00:aa:01:00:00:00", isPowered: true, isDiscovering: true)
        table.observe(bluetooth: .adapters([hci0]), now: .seconds(20))
        #expect(table.takeChanges(now: .seconds(20)).changes.isEmpty)
        #expect(table.nextDeadline() == nil)
        // bluetoothd left the bus: no adapter, no object.
        table.observe(bluetooth: .adapters([]), now: .seconds(30))
        _ = table.takeChanges(now: .seconds(30))
        #expect(table.nextDeadline() == .seconds(150))
        #expect(table.takeChanges(now: .seconds(150)).changes.first?.device?.online == false)
    }

    @Test func aPairedDeviceIsJudgedByItsAdvertisementsItsObjectStays() throws {
        var table = makeTable()
        var paired = BluetoothAdvertisement(
            adapter: "hci0",
            address: publicAddress,
            addressType: .public,
            name: "Tag",
            appearance: nil,
            manufacturerData: [],
            serviceUUIDs: [],
            rssi: -60,
            lastSeen: .seconds(1)
        )
        paired.isTemporary = false
        table.observe(bluetooth: .advertised(paired), now: .seconds(1))
        _ = table.takeChanges(now: .seconds(1))
        #expect(table.nextDeadline() == .seconds(121))
        #expect(table.takeChanges(now: .seconds(121)).changes.first?.device?.online == false)
    }
}
