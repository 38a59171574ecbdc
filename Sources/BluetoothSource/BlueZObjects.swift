import Discovery
import DiscoveryTerms
import SystemBus

/// BlueZ's objects as the source knows them — adapters (`org.bluez.Adapter1`) and devices (`org.bluez.Device1`) by
/// object path — and what each D-Bus input changes, as observations. A pure state machine: no bus, no clock (the
/// caller passes `now`); the source feeds it and sends what it returns.
struct BlueZObjects {
    static let adapterInterface = "org.bluez.Adapter1"
    static let deviceInterface = "org.bluez.Device1"
    /// Device1 properties an advertisement sets (a change of one means the device was heard), and those that make
    /// it temporary or not.
    static let advertisedProperties: Set<String> = [
        "Address", "AddressType", "Name", "Appearance", "ManufacturerData", "ServiceData", "UUIDs", "RSSI", "TxPower",
        "Paired", "Bonded",
    ]

    /// The adapters to follow by name (`hci0`); empty for all.
    let adapterNames: Set<String>
    /// Adapter1's properties by object path (followed adapters only).
    private(set) var adapters: [String: [String: DBusValue]] = [:]
    /// Device1's properties by object path (devices of followed adapters only).
    private(set) var devices: [String: [String: DBusValue]] = [:]

    init(adapterNames: Set<String>) { self.adapterNames = adapterNames }

    /// The adapters as reported: sorted by name.
    var adapterList: [BluetoothAdapter] {
        adapters.map { path, properties in
            BluetoothAdapter(
                name: Self.lastComponent(path),
                address: (properties["Address"]?.string ?? "").lowercased(),
                isPowered: properties["Powered"]?.bool ?? false,
                isDiscovering: properties["Discovering"]?.bool ?? false
            )
        }
        .sorted { $0.name < $1.name }
    }

    /// The object paths of the powered adapters, sorted.
    var poweredAdapterPaths: [String] {
        adapters.filter { $0.value["Powered"]?.bool ?? false }.keys.sorted()
    }

    /// Replaces everything with `GetManagedObjects`' answer (`a{oa{sa{sv}}}`): the adapters, every device heard
    /// recently (see ``isHeardRecently(_:)``), and the removal of each device known before that is not in it.
    mutating func load(managedObjects: DBusValue, now: Duration) -> [BluetoothObservation] {
        let before = devices
        adapters = [:]
        devices = [:]
        var observations: [BluetoothObservation] = []
        for (path, interfaces) in managedObjects.dictionary ?? [:] {
            let interfaces = Self.interfaceProperties(interfaces)
            if let properties = interfaces[Self.adapterInterface], follows(adapterPath: path) {
                adapters[path] = properties
            }
        }
        for (path, interfaces) in (managedObjects.dictionary ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard let properties = Self.interfaceProperties(interfaces)[Self.deviceInterface],
                follows(devicePath: path, properties: properties)
            else { continue }
            devices[path] = properties
            if Self.isHeardRecently(properties), let advertisement = advertisement(path: path, now: now) {
                observations.append(.advertised(advertisement))
            }
        }
        let removals = before.keys.sorted().compactMap { path -> BluetoothObservation? in
            guard devices[path] == nil, let properties = before[path], let address = properties["Address"]?.string
            else { return nil }
            return .removed(adapter: adapterName(of: path, properties), address: address.lowercased())
        }
        return [.adapters(adapterList)] + removals + observations
    }

    /// Whether a device object stands for an advertiser heard recently: one with an `RSSI` (heard in the current
    /// discovery), or one neither paired nor bonded. bluetoothd keeps such a temporary device only while it hears
    /// it: every advertisement report restarts its timer (`device_update_last_seen`, src/device.c), and the object
    /// goes after `TemporaryTimeout` (30 s by default) without one. Its `RSSI` is gone while no discovery runs, and
    /// stays unchanged (no `PropertiesChanged`) for an advertiser whose signal does not move.
    static func isHeardRecently(_ properties: [String: DBusValue]) -> Bool {
        properties["RSSI"] != nil || isTemporary(properties)
    }

    /// Whether bluetoothd keeps the device's object only while it hears it: neither paired nor bonded.
    static func isTemporary(_ properties: [String: DBusValue]) -> Bool {
        properties["Paired"]?.bool != true && properties["Bonded"]?.bool != true
    }

    /// `InterfacesAdded(o, a{sa{sv}})`.
    mutating func interfacesAdded(path: String, interfaces: DBusValue, now: Duration) -> [BluetoothObservation] {
        let interfaces = Self.interfaceProperties(interfaces)
        var observations: [BluetoothObservation] = []
        if let properties = interfaces[Self.adapterInterface], follows(adapterPath: path) {
            adapters[path] = properties
            observations.append(.adapters(adapterList))
        }
        if let properties = interfaces[Self.deviceInterface], follows(devicePath: path, properties: properties) {
            devices[path] = properties
            if let advertisement = advertisement(path: path, now: now) {
                observations.append(.advertised(advertisement))
            }
        }
        return observations
    }

    /// `InterfacesRemoved(o, as)`.
    mutating func interfacesRemoved(path: String, interfaces: [String]) -> [BluetoothObservation] {
        var observations: [BluetoothObservation] = []
        if interfaces.contains(Self.adapterInterface), adapters.removeValue(forKey: path) != nil {
            // bluetoothd removes an adapter's devices (with their own signals) before the adapter.
            observations.append(.adapters(adapterList))
        }
        if interfaces.contains(Self.deviceInterface), let properties = devices.removeValue(forKey: path),
            let address = properties["Address"]?.string
        {
            observations.append(.removed(adapter: adapterName(of: path, properties), address: address.lowercased()))
        }
        return observations
    }

    /// `PropertiesChanged(s, a{sv}, as)` on an object.
    mutating func propertiesChanged(
        path: String,
        interface: String,
        changed: DBusValue,
        invalidated: [String],
        now: Duration
    ) -> [BluetoothObservation] {
        let changed = changed.dictionary ?? [:]
        switch interface {
        case Self.adapterInterface:
            guard var properties = adapters[path] else { return [] }
            let before = adapterList
            properties.merge(changed) { $1 }
            for name in invalidated { properties[name] = nil }
            adapters[path] = properties
            return adapterList == before ? [] : [.adapters(adapterList)]
        case Self.deviceInterface:
            guard var properties = devices[path] else { return [] }
            properties.merge(changed) { $1 }
            for name in invalidated { properties[name] = nil }
            devices[path] = properties
            guard !Self.advertisedProperties.isDisjoint(with: changed.keys),
                let advertisement = advertisement(path: path, now: now)
            else { return [] }
            return [.advertised(advertisement)]
        default:
            return []
        }
    }

    /// bluetoothd left the bus: no adapter any more (devices are judged by their last advertisement).
    mutating func clear() -> [BluetoothObservation] {
        let hadAdapters = !adapters.isEmpty
        adapters = [:]
        devices = [:]
        return hadAdapters ? [.adapters([])] : []
    }

    /// Every device heard recently (``isHeardRecently(_:)``), as advertisements at `now` (when browsing starts again).
    func currentAdvertisements(now: Duration) -> [BluetoothObservation] {
        devices.keys.sorted().compactMap { path in
            guard let properties = devices[path], Self.isHeardRecently(properties) else { return nil }
            return advertisement(path: path, now: now).map { .advertised($0) }
        }
    }

    /// A device's advertisement from its Device1 properties; `nil` without a valid address.
    func advertisement(path: String, now: Duration) -> BluetoothAdvertisement? {
        guard let properties = devices[path], let address = properties["Address"]?.string?.lowercased(),
            let addressType = BluetoothAddressType(
                address: address,
                isRandom: properties["AddressType"]?.string == "random"
            )
        else { return nil }
        let manufacturerData = (properties["ManufacturerData"]?.entries ?? []).compactMap {
            entry -> BluetoothManufacturerData? in
            guard let id = entry.key.integer, let companyID = UInt16(exactly: id), let data = entry.value.bytes else {
                return nil
            }
            return BluetoothManufacturerData(companyID: companyID, data: data)
        }
        let rssi = properties["RSSI"]?.integer
        return BluetoothAdvertisement(
            adapter: adapterName(of: path, properties),
            address: address,
            addressType: addressType,
            name: properties["Name"]?.string,
            appearance: properties["Appearance"]?.integer.flatMap { UInt16(exactly: $0) },
            manufacturerData: manufacturerData.sorted { $0.companyID < $1.companyID },
            serviceUUIDs: (properties["UUIDs"]?.elements ?? []).compactMap { $0.string?.lowercased() }.sorted(),
            // 127 is HCI's "RSSI not available".
            rssi: rssi == 127 ? nil : rssi,
            lastSeen: now,
            isTemporary: Self.isTemporary(properties)
        )
    }

    private func follows(adapterPath path: String) -> Bool {
        adapterNames.isEmpty || adapterNames.contains(Self.lastComponent(path))
    }

    private func follows(devicePath path: String, properties: [String: DBusValue]) -> Bool {
        adapterNames.isEmpty || adapterNames.contains(adapterName(of: path, properties))
    }

    /// The adapter's name from the device's `Adapter` property (`/org/bluez/hci0`), else from its own path
    /// (`/org/bluez/hci0/dev_…`).
    private func adapterName(of path: String, _ properties: [String: DBusValue]) -> String {
        if let adapter = properties["Adapter"]?.string { return Self.lastComponent(adapter) }
        let components = path.split(separator: "/")
        return components.count >= 2 ? String(components[components.count - 2]) : path
    }

    static func lastComponent(_ path: String) -> String { String(path.split(separator: "/").last ?? "") }

    /// `a{sa{sv}}` as interface name → properties.
    static func interfaceProperties(_ value: DBusValue) -> [String: [String: DBusValue]] {
        (value.dictionary ?? [:]).compactMapValues { $0.dictionary }
    }
}
