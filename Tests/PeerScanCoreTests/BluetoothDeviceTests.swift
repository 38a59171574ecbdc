import Discovery
import PeerScanModel
import Testing

@testable import PeerScanCore

private let presence = DeviceTable.Presence(offlineAfter: .seconds(60), forgetAfter: .seconds(600))
private let irk = IdentityResolvingKey(hex: "ec0234a357c8ad05341010a60a397d9b")!
private let publicAddress = "00:1a:7d:da:71:13"

private func advertisement(
    _ address: String,
    _ type: BluetoothAddressType,
    name: String? = nil,
    rssi: Int? = -65,
    at time: Duration,
    company: UInt16? = nil
) -> BluetoothObservation {
    .advertised(
        BluetoothAdvertisement(
            adapter: "hci0",
            address: address,
            addressType: type,
            name: name,
            appearance: nil,
            manufacturerData: company.map { [BluetoothManufacturerData(companyID: $0, data: [1, 2])] } ?? [],
            serviceUUIDs: [],
            rssi: rssi,
            lastSeen: time
        )
    )
}

private func makeTable(
    keys: [DeviceID: IdentityResolvingKey] = [:],
    identities: DeviceIdentities = .init()
)
    -> DeviceTable
{
    DeviceTable(
        presence: presence,
        vendorOf: { $0.hasPrefix("00:1a:7d") ? "cyber-blue(HK)Ltd" : nil },
        identities: identities,
        bluetooth: BluetoothSettings(
            away: .seconds(120),
            manufacturerOf: { $0 == 0x004C ? "Apple, Inc." : nil },
            keys: keys
        )
    )
}

/// The device table's Bluetooth part: advertisements → devices, IRK resolution, ephemeral devices, presence, bars.
@Suite struct BluetoothDeviceTests {
    @Test func anAdvertiserIsListedWithItsNameAndManufacturer() throws {
        var table = makeTable()
        table.observe(
            bluetooth: advertisement(publicAddress, .public, name: "Tag", at: .seconds(1), company: 0x004C),
            now: .seconds(1)
        )
        let (changes, events) = table.takeChanges(now: .seconds(1))
        let device = try #require(changes.first?.device)
        #expect(device.id == DeviceID.make(bluetoothAddress: publicAddress))
        #expect(device.displayName == "Tag" && device.online)
        #expect(device.bluetooth?.manufacturer == "Apple, Inc.")
        #expect(device.bluetooth?.bars == 3 && device.bluetooth?.isEphemeral == false)
        #expect(device.vendor == "cyber-blue(HK)Ltd", "a public address's OUI names the vendor")
        #expect(device.presenceReason?.description == "answered via=ble")
        #expect(events.count == 1)
        #expect(table.takeIdentityChanges() == [.bound(.bluetooth(publicAddress), device.id)])
    }

    @Test func aSilentAdvertiserGoesOfflineAfterTheAwayTime() throws {
        var table = makeTable()
        table.observe(bluetooth: advertisement(publicAddress, .public, name: "Tag", at: .seconds(1)), now: .seconds(1))
        _ = table.takeChanges(now: .seconds(1))
        #expect(table.nextDeadline() == .seconds(121))
        #expect(table.takeChanges(now: .seconds(120)).changes.isEmpty)
        let (changes, events) = table.takeChanges(now: .seconds(121))
        let device = try #require(changes.first?.device)
        #expect(!device.online && device.presenceReason?.description == "unanswered asked=ble")
        guard case .offline? = events.first else {
            Issue.record("\(events)")
            return
        }
        // Heard again: online, same id.
        table.observe(
            bluetooth: advertisement(publicAddress, .public, name: "Tag", at: .seconds(200)),
            now: .seconds(200)
        )
        #expect(table.takeChanges(now: .seconds(200)).changes.first?.device?.online == true)
    }

    @Test func onlyRSSIMovingWithinABarMakesNoChange() {
        var table = makeTable()
        table.observe(bluetooth: advertisement(publicAddress, .public, rssi: -65, at: .seconds(1)), now: .seconds(1))
        _ = table.takeChanges(now: .seconds(1))
        for (step, rssi) in [-62, -68, -71, -58, -72].enumerated() {
            let time = Duration.seconds(2 + step)
            table.observe(bluetooth: advertisement(publicAddress, .public, rssi: rssi, at: time), now: time)
            #expect(table.takeChanges(now: time).changes.isEmpty, "\(rssi) dBm stays 3 bars")
        }
        table.observe(bluetooth: advertisement(publicAddress, .public, rssi: -74, at: .seconds(9)), now: .seconds(9))
        #expect(table.takeChanges(now: .seconds(9)).changes.first?.device?.bluetooth?.bars == 2)
    }

    @Test func rotatingAddressesWithTheIRKAreOneDeviceWithOneID() throws {
        let phone = DeviceID.make(macAddress: "3c:22:fb:44:55:66")
        var table = makeTable(
            keys: [phone: irk],
            identities: DeviceIdentities(bindings: [.macAddress("3c:22:fb:44:55:66"): phone])
        )
        let first = try IRKResolver.makeAddress(key: irk, prand: 0x12_3456)
        let second = try IRKResolver.makeAddress(key: irk, prand: 0x2a_bcde)
        #expect(first != second)
        table.observe(
            bluetooth: advertisement(first, .resolvablePrivate, name: "Phone", at: .seconds(1)),
            now: .seconds(1)
        )
        let inserted = try #require(table.takeChanges(now: .seconds(1)).changes.first?.device)
        #expect(inserted.id == phone && inserted.bluetooth?.isEphemeral == false)
        table.observe(
            bluetooth: advertisement(second, .resolvablePrivate, name: "Phone", at: .seconds(900)),
            now: .seconds(900)
        )
        let (changes, _) = table.takeChanges(now: .seconds(900))
        #expect(changes.map(\.id) == [phone], "the same item, updated")
        #expect(changes.first?.device?.bluetooth?.address == second)
        #expect(table.deviceCount == 1)
        #expect(table.takeIdentityChanges().isEmpty, "private addresses are never keys")
    }

    @Test func eachAddressIsCheckedAgainstTheKeysOnce() throws {
        var resolver = IRKResolver(keys: [DeviceID.make(macAddress: "00:00:0c:11:22:33"): irk])
        let address = try IRKResolver.makeAddress(key: irk, prand: 0x01_0203)
        #expect(try resolver.resolve(address) != nil)
        #expect(try resolver.resolve(address) != nil)
        #expect(try resolver.resolve("7f:00:00:00:00:01") == nil)
        #expect(try resolver.resolve("7f:00:00:00:00:01") == nil)
        #expect(resolver.hashCount == 2)
    }

    @Test func rotatingAddressesWithoutAnIRKAreEphemeralItemsThatAreNotKept() throws {
        var table = makeTable()
        let first = try IRKResolver.makeAddress(key: irk, prand: 0x12_3456)
        let second = try IRKResolver.makeAddress(key: irk, prand: 0x2a_bcde)
        table.observe(bluetooth: advertisement(first, .resolvablePrivate, at: .seconds(1)), now: .seconds(1))
        let one = try #require(table.takeChanges(now: .seconds(1)).changes.first?.device)
        #expect(one.bluetooth?.isEphemeral == true && one.id == DeviceID.make(bluetoothAddress: first))
        table.observe(bluetooth: advertisement(second, .resolvablePrivate, at: .seconds(60)), now: .seconds(60))
        #expect(
            table.takeChanges(now: .seconds(60)).changes.first?.device?.id == DeviceID.make(bluetoothAddress: second)
        )
        #expect(table.deviceCount == 2)
        let (changes, _) = table.takeChanges(now: .seconds(121))
        #expect(changes.map(\.id) == [one.id] && changes.first?.device == nil, "gone, not kept offline")
        #expect(table.takeIdentityChanges().allSatisfy { if case .bound = $0 { false } else { true } })
    }

    @Test func anIRKSetLaterTurnsTheEphemeralItemIntoTheDevice() throws {
        var table = makeTable()
        let address = try IRKResolver.makeAddress(key: irk, prand: 0x12_3456)
        table.observe(bluetooth: advertisement(address, .resolvablePrivate, at: .seconds(1)), now: .seconds(1))
        let ephemeral = try #require(table.takeChanges(now: .seconds(1)).changes.first?.device)
        try table.setIRK(irk, for: ephemeral.id)
        let (changes, events) = table.takeChanges(now: .seconds(2))
        #expect(changes.count == 1 && changes.first?.device?.bluetooth?.isEphemeral == false)
        // An update, not a departure and an arrival; kept from now on, so new now (an ephemeral device has no lines).
        #expect(events.count == 1 && { if case .appeared = events[0] { true } else { false } }())
        #expect(table.takeIRKChanges() == [ephemeral.id: irk])
        #expect(throws: DeviceEditError.self) { try table.setIRK(irk, for: DeviceID.make(hostName: "none.local")) }
    }

    @Test func aPublicAdvertiserMergedWithALANDeviceIsOneItem() throws {
        var table = makeTable()
        let mac = "3c:22:fb:44:55:66"
        table.updateNeighbour(
            Neighbour(address: "10.0.0.5", interface: "lan0", macAddress: mac, state: .reachable, lastConfirmed: nil),
            now: .zero
        )
        table.observe(bluetooth: advertisement(publicAddress, .public, name: "Speaker", at: .zero), now: .zero)
        #expect(table.takeChanges(now: .zero).changes.count == 2)
        let lan = DeviceID.make(macAddress: mac)
        let radio = DeviceID.make(bluetoothAddress: publicAddress)
        try table.merge([radio], into: lan)
        let (changes, _) = table.takeChanges(now: .seconds(1))
        #expect(changes.first { $0.id == radio }.map { $0.device == nil } == true)
        let merged = try #require(changes.first { $0.id == lan }?.device)
        #expect(merged.macAddresses == [mac] && merged.bluetooth?.address == publicAddress)
        #expect(merged.displayName == "Speaker")
        #expect(table.deviceCount == 1)
        // Heard again: still one item.
        table.observe(
            bluetooth: advertisement(publicAddress, .public, name: "Speaker", at: .seconds(5)),
            now: .seconds(5)
        )
        _ = table.takeChanges(now: .seconds(5))
        #expect(table.deviceCount == 1)
    }

    @Test func aLANDeviceMergedIntoABluetoothDeviceIsOneItemWithTheBluetoothID() throws {
        var table = makeTable()
        let mac = "3c:22:fb:44:55:66"
        table.updateNeighbour(
            Neighbour(address: "10.0.0.5", interface: "lan0", macAddress: mac, state: .reachable, lastConfirmed: nil),
            now: .zero
        )
        table.observe(bluetooth: advertisement(publicAddress, .public, name: "Speaker", at: .zero), now: .zero)
        _ = table.takeChanges(now: .zero)
        let lan = DeviceID.make(macAddress: mac)
        let radio = DeviceID.make(bluetoothAddress: publicAddress)
        try table.merge([lan], into: radio)
        let (changes, events) = table.takeChanges(now: .seconds(1))
        #expect(changes.first { $0.id == lan }.map { $0.device == nil } == true)
        let merged = try #require(changes.first { $0.id == radio }?.device)
        #expect(merged.macAddresses == [mac] && merged.bluetooth?.address == publicAddress)
        #expect(table.deviceCount == 1)
        #expect(events.count == 1)
        #expect(merged.logFields["bluetooth"] == publicAddress)
    }

    @Test func anEphemeralDeviceHasNoLinesOfItsOwn() throws {
        var table = makeTable()
        table.observe(bluetooth: advertisement("4d:11:22:33:44:55", .resolvablePrivate, at: .zero), now: .zero)
        let (changes, events) = table.takeChanges(now: .zero)
        #expect(changes.count == 1 && events.isEmpty, "listed, but no `new device` at every address rotation")
        #expect(table.takeChanges(now: .seconds(121)).events.isEmpty, "nor `device removed` when it goes")
    }
}
