import Discovery
import PeerScanModel
import SystemBus
import Testing

@testable import BluetoothSource

/// BlueZ's D-Bus shapes built by hand, as bluetoothd sends them.
enum BlueZFake {
    static func properties(_ entries: [String: DBusValue]) -> DBusValue { .stringVariantDictionary(entries) }

    static func interfaces(_ interfaces: [String: [String: DBusValue]]) -> DBusValue {
        .array(
            elementSignature: "{sa{sv}}",
            interfaces.sorted { $0.key < $1.key }.map { .dictionaryEntry(.string($0.key), properties($0.value)) }
        )
    }

    static func managedObjects(_ objects: [String: [String: [String: DBusValue]]]) -> DBusValue {
        .array(
            elementSignature: "{oa{sa{sv}}}",
            objects.sorted { $0.key < $1.key }.map { .dictionaryEntry(.objectPath($0.key), interfaces($0.value)) }
        )
    }

    static func adapter(_ address: String, powered: Bool = true) -> [String: DBusValue] {
        ["Address": .string(address), "Powered": .boolean(powered), "Discovering": .boolean(false)]
    }

    static func device(
        _ address: String,
        type: String = "public",
        adapter: String = "/org/bluez/hci0",
        rssi: Int16? = -60,
        extra: [String: DBusValue] = [:]
    ) -> [String: DBusValue] {
        var properties: [String: DBusValue] = [
            "Address": .string(address), "AddressType": .string(type), "Adapter": .objectPath(adapter),
        ]
        if let rssi { properties["RSSI"] = .int16(rssi) }
        return properties.merging(extra) { $1 }
    }

    static func manufacturerData(_ fields: [UInt16: [UInt8]]) -> DBusValue {
        .array(
            elementSignature: "{qv}",
            fields.sorted { $0.key < $1.key }.map {
                .dictionaryEntry(.uint16($0.key), .variant(.array(elementSignature: "y", $0.value.map { .byte($0) })))
            }
        )
    }
}

@Suite struct BlueZObjectsTests {
    let adapter = "org.bluez.Adapter1"
    let device = "org.bluez.Device1"

    @Test func loadReportsAdaptersAndTheDevicesHeardNow() {
        var objects = BlueZObjects(adapterNames: [])
        let managed = BlueZFake.managedObjects([
            "/org/bluez/hci0": [adapter: BlueZFake.adapter("00:AA:01:00:00:00")],
            "/org/bluez/hci0/dev_00_AA_01_01_00_01": [
                device: BlueZFake.device(
                    "00:AA:01:01:00:01",
                    extra: [
                        "Name": .string("radio-ble-a"), "Appearance": .uint16(0x00C0),
                        "ManufacturerData": BlueZFake.manufacturerData([0xFFFF: [1, 2], 0x004C: [9]]),
                        "UUIDs": .array(
                            elementSignature: "s",
                            [
                                .string("0000180F-0000-1000-8000-00805F9B34FB"),
                                .string("0000180a-0000-1000-8000-00805f9b34fb"),
                            ]
                        ),
                    ]
                )
            ],
            // Paired, not advertising now: no RSSI.
            "/org/bluez/hci0/dev_11_22_33_44_55_66": [
                device: BlueZFake.device("11:22:33:44:55:66", rssi: nil, extra: ["Paired": .boolean(true)])
            ],
        ])
        let observations = objects.load(managedObjects: managed, now: .seconds(5))
        #expect(
            observations == [
                .adapters([
                    BluetoothAdapter(name: "hci0", address: "00:aa:01:00:00:00", isPowered: true, isDiscovering: false)
                ]),
                .advertised(
                    BluetoothAdvertisement(
                        adapter: "hci0",
                        address: "00:aa:01:01:00:01",
                        addressType: .public,
                        name: "radio-ble-a",
                        appearance: 0x00C0,
                        manufacturerData: [
                            BluetoothManufacturerData(companyID: 0x004C, data: [9]),
                            BluetoothManufacturerData(companyID: 0xFFFF, data: [1, 2]),
                        ],
                        serviceUUIDs: ["0000180a-0000-1000-8000-00805f9b34fb", "0000180f-0000-1000-8000-00805f9b34fb"],
                        rssi: -60,
                        lastSeen: .seconds(5),
                        isTemporary: true
                    )
                ),
            ]
        )
        #expect(objects.poweredAdapterPaths == ["/org/bluez/hci0"])
    }

    /// A temporary (unpaired) device's object exists only while bluetoothd hears it, so it counts as heard even
    /// without an `RSSI` (none while no discovery runs); a paired or bonded one without an `RSSI` does not.
    @Test func loadCountsAnUnpairedDeviceWithoutRSSIAsHeard() {
        var objects = BlueZObjects(adapterNames: [])
        let managed = BlueZFake.managedObjects([
            "/org/bluez/hci0": [adapter: BlueZFake.adapter("00:AA:01:00:00:00")],
            "/org/bluez/hci0/dev_00_AA_01_01_00_01": [device: BlueZFake.device("00:AA:01:01:00:01", rssi: nil)],
            "/org/bluez/hci0/dev_00_AA_01_01_00_02": [
                device: BlueZFake.device("00:AA:01:01:00:02", rssi: nil, extra: ["Bonded": .boolean(true)])
            ],
            "/org/bluez/hci0/dev_00_AA_01_01_00_03": [
                device: BlueZFake.device("00:AA:01:01:00:03", rssi: nil, extra: ["Paired": .boolean(false)])
            ],
        ])
        let heard = objects.load(managedObjects: managed, now: .seconds(5)).compactMap { observation -> String? in
            if case .advertised(let advertisement) = observation { advertisement.address } else { nil }
        }
        #expect(heard == ["00:aa:01:01:00:01", "00:aa:01:01:00:03"])
        let again = objects.currentAdvertisements(now: .seconds(9)).compactMap { observation -> String? in
            if case .advertised(let advertisement) = observation { advertisement.address } else { nil }
        }
        #expect(again == ["00:aa:01:01:00:01", "00:aa:01:01:00:03"])
    }

    /// Reading every object again (after a signal that could not be read) reports the devices that went meanwhile.
    @Test func reloadReportsTheDevicesThatWent() {
        var objects = BlueZObjects(adapterNames: [])
        let adapterObject = ["/org/bluez/hci0": [adapter: BlueZFake.adapter("00:AA:01:00:00:00")]]
        let stays = ["/org/bluez/hci0/dev_00_AA_01_01_00_01": [device: BlueZFake.device("00:AA:01:01:00:01")]]
        let goes = ["/org/bluez/hci0/dev_00_AA_01_01_00_02": [device: BlueZFake.device("00:AA:01:01:00:02")]]
        let all = adapterObject.merging(stays) { $1 }.merging(goes) { $1 }
        _ = objects.load(managedObjects: BlueZFake.managedObjects(all), now: .seconds(1))
        let again = objects.load(
            managedObjects: BlueZFake.managedObjects(adapterObject.merging(stays) { $1 }),
            now: .seconds(2)
        )
        #expect(again.contains(.removed(adapter: "hci0", address: "00:aa:01:01:00:02")))
        #expect(!again.contains(.removed(adapter: "hci0", address: "00:aa:01:01:00:01")))
        #expect(objects.devices.keys.sorted() == ["/org/bluez/hci0/dev_00_AA_01_01_00_01"])
    }

    @Test(arguments: [
        ("C1:22:33:44:55:66", "random", BluetoothAddressType.randomStatic),
        ("4A:22:33:44:55:66", "random", .resolvablePrivate),
        ("0A:22:33:44:55:66", "random", .nonResolvable),
        ("C1:22:33:44:55:66", "public", .public),
    ])
    func addressTypeFromAddressTypeAndTopBits(address: String, type: String, expected: BluetoothAddressType) {
        var objects = BlueZObjects(adapterNames: [])
        let path = "/org/bluez/hci0/dev_x"
        let observations = objects.interfacesAdded(
            path: path,
            interfaces: BlueZFake.interfaces([device: BlueZFake.device(address, type: type)]),
            now: .zero
        )
        guard case .advertised(let advertisement) = observations.first else {
            Issue.record("no advertisement: \(observations)")
            return
        }
        #expect(advertisement.addressType == expected)
        #expect(advertisement.address == address.lowercased())
    }

    @Test func reservedRandomTopBitsAreNoAdvertisement() {
        var objects = BlueZObjects(adapterNames: [])
        let observations = objects.interfacesAdded(
            path: "/org/bluez/hci0/dev_x",
            interfaces: BlueZFake.interfaces([device: BlueZFake.device("8A:22:33:44:55:66", type: "random")]),
            now: .zero
        )
        #expect(observations.isEmpty)
    }

    @Test func advertisedPropertyChangeIsHeardAgainOthersAreNot() {
        var objects = BlueZObjects(adapterNames: [])
        let path = "/org/bluez/hci0/dev_00_AA_01_01_00_01"
        _ = objects.interfacesAdded(
            path: path,
            interfaces: BlueZFake.interfaces([device: BlueZFake.device("00:AA:01:01:00:01")]),
            now: .seconds(1)
        )
        let heard = objects.propertiesChanged(
            path: path,
            interface: device,
            changed: BlueZFake.properties(["ManufacturerData": BlueZFake.manufacturerData([0x0059: [7]])]),
            invalidated: [],
            now: .seconds(9)
        )
        guard case .advertised(let advertisement) = heard.first, heard.count == 1 else {
            Issue.record("expected one advertisement: \(heard)")
            return
        }
        #expect(advertisement.lastSeen == .seconds(9))
        #expect(advertisement.manufacturerData == [BluetoothManufacturerData(companyID: 0x0059, data: [7])])
        let connected = objects.propertiesChanged(
            path: path,
            interface: device,
            changed: BlueZFake.properties(["Connected": .boolean(true)]),
            invalidated: [],
            now: .seconds(10)
        )
        #expect(connected.isEmpty)
    }

    @Test func rssi127IsNotAvailable() {
        var objects = BlueZObjects(adapterNames: [])
        let observations = objects.interfacesAdded(
            path: "/org/bluez/hci0/dev_x",
            interfaces: BlueZFake.interfaces([device: BlueZFake.device("00:AA:01:01:00:01", rssi: 127)]),
            now: .zero
        )
        guard case .advertised(let advertisement) = observations.first else {
            Issue.record("no advertisement")
            return
        }
        #expect(advertisement.rssi == nil)
    }

    @Test func removalsOfDevicesAndAdapters() {
        var objects = BlueZObjects(adapterNames: [])
        _ = objects.load(
            managedObjects: BlueZFake.managedObjects([
                "/org/bluez/hci0": [adapter: BlueZFake.adapter("00:AA:01:00:00:00")],
                "/org/bluez/hci0/dev_1": [device: BlueZFake.device("00:AA:01:01:00:01")],
            ]),
            now: .zero
        )
        #expect(
            objects.interfacesRemoved(path: "/org/bluez/hci0/dev_1", interfaces: [device])
                == [.removed(adapter: "hci0", address: "00:aa:01:01:00:01")]
        )
        #expect(objects.interfacesRemoved(path: "/org/bluez/hci0/dev_1", interfaces: [device]).isEmpty)
        #expect(objects.interfacesRemoved(path: "/org/bluez/hci0", interfaces: [adapter]) == [.adapters([])])
        #expect(objects.clear().isEmpty)
    }

    @Test func adapterChangesReportOnlyWhatTheyChange() {
        var objects = BlueZObjects(adapterNames: [])
        _ = objects.load(
            managedObjects: BlueZFake.managedObjects([
                "/org/bluez/hci0": [adapter: BlueZFake.adapter("00:AA:01:00:00:00", powered: false)]
            ]),
            now: .zero
        )
        #expect(objects.poweredAdapterPaths.isEmpty)
        let powered = objects.propertiesChanged(
            path: "/org/bluez/hci0",
            interface: adapter,
            changed: BlueZFake.properties(["Powered": .boolean(true)]),
            invalidated: [],
            now: .zero
        )
        #expect(
            powered == [
                .adapters([
                    BluetoothAdapter(name: "hci0", address: "00:aa:01:00:00:00", isPowered: true, isDiscovering: false)
                ])
            ]
        )
        #expect(objects.poweredAdapterPaths == ["/org/bluez/hci0"])
        let unchanged = objects.propertiesChanged(
            path: "/org/bluez/hci0",
            interface: adapter,
            changed: BlueZFake.properties(["Class": .uint32(0)]),
            invalidated: [],
            now: .zero
        )
        #expect(unchanged.isEmpty)
    }

    @Test func onlyTheNamedAdaptersAndTheirDevices() {
        var objects = BlueZObjects(adapterNames: ["hci1"])
        let observations = objects.load(
            managedObjects: BlueZFake.managedObjects([
                "/org/bluez/hci0": [adapter: BlueZFake.adapter("00:AA:01:00:00:00")],
                "/org/bluez/hci1": [adapter: BlueZFake.adapter("00:AA:01:01:00:01")],
                "/org/bluez/hci0/dev_1": [device: BlueZFake.device("00:AA:01:02:00:02")],
                "/org/bluez/hci1/dev_1": [device: BlueZFake.device("00:AA:01:03:00:03", adapter: "/org/bluez/hci1")],
            ]),
            now: .zero
        )
        #expect(observations.count == 2)
        #expect(objects.adapterList.map(\.name) == ["hci1"])
        guard case .advertised(let advertisement) = observations.last else {
            Issue.record("no advertisement")
            return
        }
        #expect(advertisement.adapter == "hci1")
    }
}
