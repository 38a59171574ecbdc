import DiscoveryTerms

/// What a device's Bluetooth LE advertisements say about it (``Device/bluetooth``): the volatile parts (RSSI, when it
/// was last heard) are left out, so an unchanged advertiser never causes an update; the signal is ``bars``, which
/// move with hysteresis.
///
/// Wire form: `{"address": "aa:bb:…", "addressType": "public|random-static|resolvable-private|non-resolvable",
/// "name": String?, "appearance": Int?, "manufacturer": String?, "services": [String], "bars": 0…4,
/// "ephemeral": Bool}`.
public struct BluetoothFacts: Hashable, Sendable, Codable {
    /// The address it advertises under now, lowercase `aa:bb:cc:dd:ee:ff` (for a device an IRK resolves, the latest
    /// resolvable private address).
    public var address: String
    /// The kind of ``address``.
    public var addressType: BluetoothAddressType
    /// Its advertised name, if any.
    public var name: String?
    /// Its GAP appearance, if advertised.
    public var appearance: Int?
    /// The company named by the first company identifier of its manufacturer data (the Bluetooth SIG's assigned
    /// numbers), if any is known.
    public var manufacturer: String?
    /// Its advertised service UUIDs, lowercase 128-bit form, sorted.
    public var services: [String]
    /// Its signal as bars, 0 to 4 (see ``SignalBars``).
    public var bars: Int
    /// Whether it is known only by a private address no IRK resolves: listed while present, never kept.
    public var isEphemeral: Bool

    /// Creates facts.
    public init(
        address: String,
        addressType: BluetoothAddressType,
        name: String? = nil,
        appearance: Int? = nil,
        manufacturer: String? = nil,
        services: [String] = [],
        bars: Int = 0,
        isEphemeral: Bool = false
    ) {
        self.address = address
        self.addressType = addressType
        self.name = name
        self.appearance = appearance
        self.manufacturer = manufacturer
        self.services = services
        self.bars = bars
        self.isEphemeral = isEphemeral
    }

    private enum CodingKeys: String, CodingKey {
        case address, addressType, name, appearance, manufacturer, services, bars
        case isEphemeral = "ephemeral"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        address = try container.decode(String.self, forKey: .address)
        addressType = try container.decode(BluetoothAddressType.self, forKey: .addressType)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        appearance = try container.decodeIfPresent(Int.self, forKey: .appearance)
        manufacturer = try container.decodeIfPresent(String.self, forKey: .manufacturer)
        services = try container.decodeIfPresent([String].self, forKey: .services) ?? []
        bars = try container.decodeIfPresent(Int.self, forKey: .bars) ?? 0
        isEphemeral = try container.decodeIfPresent(Bool.self, forKey: .isEphemeral) ?? false
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(address, forKey: .address)
        try container.encode(addressType, forKey: .addressType)
        try container.encode(name, forKey: .name)
        try container.encode(appearance, forKey: .appearance)
        try container.encode(manufacturer, forKey: .manufacturer)
        try container.encode(services, forKey: .services)
        try container.encode(bars, forKey: .bars)
        try container.encode(isEphemeral, forKey: .isEphemeral)
    }
}
