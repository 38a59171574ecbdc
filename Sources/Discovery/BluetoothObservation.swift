import DiscoveryTerms

/// What the Bluetooth LE source observed through BlueZ: the controllers, and the devices advertising near them. The
/// device table turns advertisements into devices (one per identity address, or per IRK that resolves a private one).
public enum BluetoothObservation: Sendable, Equatable {
    /// The controllers (BlueZ's `Adapter1` objects) as a whole: it replaces every one reported before.
    case adapters([BluetoothAdapter])
    /// A device advertised: BlueZ's `Device1` appeared (or, temporary, was there at start), or one of its advertised
    /// properties changed, or it was heard again (its RSSI was reported).
    case advertised(BluetoothAdvertisement)
    /// BlueZ removed the device's object. For a temporary device (``BluetoothAdvertisement/isTemporary``) that is
    /// bluetoothd's own "not heard for `TemporaryTimeout`" (30 s by default): the device table counts its away time
    /// from here. A paired device's removal (unpairing) says nothing about presence.
    case removed(adapter: String, address: String)
}

/// A Bluetooth controller (`org.bluez.Adapter1`).
public struct BluetoothAdapter: Hashable, Sendable {
    /// Its name, e.g. `hci0`.
    public var name: String
    /// Its address, lowercase `aa:bb:cc:dd:ee:ff`.
    public var address: String
    /// Whether it is powered.
    public var isPowered: Bool
    /// Whether it is discovering (scanning), by anyone's request.
    public var isDiscovering: Bool

    /// Creates an adapter.
    public init(name: String, address: String, isPowered: Bool, isDiscovering: Bool) {
        self.name = name
        self.address = address
        self.isPowered = isPowered
        self.isDiscovering = isDiscovering
    }
}

/// A device's advertisement as BlueZ's `Device1` holds it.
public struct BluetoothAdvertisement: Hashable, Sendable {
    /// The controller that heard it, e.g. `hci0`.
    public var adapter: String
    /// Its address, lowercase `aa:bb:cc:dd:ee:ff`.
    public var address: String
    /// What kind of address (BlueZ's `AddressType` and, for a random one, its two top bits).
    public var addressType: BluetoothAddressType
    /// Its advertised name (`Name`), if any.
    public var name: String?
    /// Its GAP appearance (`Appearance`), if advertised.
    public var appearance: UInt16?
    /// Its manufacturer data (`ManufacturerData`), sorted by company identifier.
    public var manufacturerData: [BluetoothManufacturerData]
    /// Its advertised service UUIDs (`UUIDs`), lowercase 128-bit form, sorted.
    public var serviceUUIDs: [String]
    /// The received signal in dBm (`RSSI`), if BlueZ reported one.
    public var rssi: Int?
    /// When it was last heard, on the daemon's clock (``ScanClock``).
    public var lastSeen: Duration
    /// Whether BlueZ holds its object only while it hears it (neither paired nor bonded): bluetoothd restarts the
    /// object's timer on every advertisement report, changed or not, and removes the object after
    /// `TemporaryTimeout` without one. While such an object exists the device is being heard.
    public var isTemporary: Bool

    /// Creates an advertisement.
    public init(
        adapter: String,
        address: String,
        addressType: BluetoothAddressType,
        name: String?,
        appearance: UInt16?,
        manufacturerData: [BluetoothManufacturerData],
        serviceUUIDs: [String],
        rssi: Int?,
        lastSeen: Duration,
        isTemporary: Bool = false
    ) {
        self.adapter = adapter
        self.address = address
        self.addressType = addressType
        self.name = name
        self.appearance = appearance
        self.manufacturerData = manufacturerData
        self.serviceUUIDs = serviceUUIDs
        self.rssi = rssi
        self.lastSeen = lastSeen
        self.isTemporary = isTemporary
    }
}

/// One manufacturer-specific data field of an advertisement.
public struct BluetoothManufacturerData: Hashable, Sendable {
    /// The Bluetooth SIG's company identifier, e.g. 0x004C (Apple).
    public var companyID: UInt16
    /// The data after the identifier.
    public var data: [UInt8]

    /// Creates a field.
    public init(companyID: UInt16, data: [UInt8]) {
        self.companyID = companyID
        self.data = data
    }
}
