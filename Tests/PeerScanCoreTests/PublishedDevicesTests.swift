import PeerScanModel
import Testing

@testable import PeerScanCore

/// The published devices on their own: one origin derives one device both ways, a take-over leaves the former origin
/// no claim, and withdrawing an origin whose device another origin holds takes nothing out.
@Suite struct PublishedDevicesTests {
    let printer = DeviceID.make(macAddress: "00:00:0c:11:22:33")
    let mac = DeviceTable.Origin.mac("00:00:0c:11:22:33")
    let host = DeviceTable.Origin.host("printer.local")

    func item(_ id: DeviceID, _ hostName: String?) -> ScanItem {
        .device(
            Device(
                id: id,
                hostName: hostName,
                displayName: nil,
                addresses: ["10.0.0.7"],
                interfaces: ["lan0"],
                services: []
            )
        )
    }

    @Test func aDeviceIsFoundByItsIdAndByItsOrigin() {
        var published = PublishedDevices()
        published.publish(item(printer, nil), id: printer, origin: mac)

        #expect(published.count == 1 && published[printer] == item(printer, nil))
        #expect(published.origin(of: printer) == mac && published.id(of: mac) == printer)
        #expect(published.id(of: host) == nil && published.device(DeviceID.make(hostName: "x.local")) == nil)
    }

    @Test func aHostThatTakesOverAMACOnlyDeviceLeavesTheMACNoClaim() {
        var published = PublishedDevices()
        published.publish(item(printer, nil), id: printer, origin: mac)
        published.publish(item(printer, "printer.local"), id: printer, origin: host)

        #expect(published.count == 1 && published.origin(of: printer) == host)
        #expect(published.id(of: mac) == nil, "taken over")
        let withdrawn = published.withdraw(mac)
        #expect(withdrawn == nil, "the MAC address derives no device now")
        #expect(published.device(printer)?.hostName == "printer.local")
    }

    @Test func withdrawingAnOriginWhoseDeviceAnotherHoldsTakesOnlyItsClaimOut() {
        var published = PublishedDevices()
        let other = DeviceTable.Origin.mac("00:00:0c:44:55:66")
        published.publish(item(printer, nil), id: printer, origin: mac)
        published.publish(item(DeviceID.make(macAddress: "00:00:0c:44:55:66"), nil), id: printer, origin: other)
        // `mac` kept no claim (taken over); `other` holds the device: withdrawing `mac` takes nothing.
        #expect(published.withdraw(mac) == nil)
        let withdrawn = published.withdraw(other)
        #expect(withdrawn?.id == printer)
        #expect(published.count == 0 && published.origin(of: printer) == nil && published.id(of: other) == nil)
    }

    @Test func removingADeviceTakesItsOriginsClaimAndDroppingKeepsTheOrigin() {
        var published = PublishedDevices()
        published.publish(item(printer, nil), id: printer, origin: mac)
        published.dropItem(of: printer)
        #expect(published[printer] == nil && published.origin(of: printer) == mac, "published again as new")

        published.publish(item(printer, nil), id: printer, origin: mac)
        let removed = published.remove(printer)
        #expect(removed?.origin == mac && published.id(of: mac) == nil && published.count == 0)
        let again = published.remove(printer)
        #expect(again == nil)
    }

    @Test func aMovedOriginDerivesTheSameDevice() {
        var published = PublishedDevices()
        let address = DeviceTable.Origin.bluetooth(.address("5e:11:22:33:44:55"))
        let resolved = DeviceTable.Origin.bluetooth(.resolved(printer))
        published.publish(item(printer, nil), id: printer, origin: address)
        published.move(address, to: resolved)

        #expect(published.id(of: address) == nil && published.id(of: resolved) == printer)
        #expect(published.origin(of: printer) == resolved)
        #expect(published.removeAll() == [printer] && published.count == 0 && published.id(of: resolved) == nil)
    }
}
