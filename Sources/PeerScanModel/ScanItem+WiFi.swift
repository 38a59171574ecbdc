import DiscoveryTerms

// The wire form of the Wi-Fi items (see docs/protocol.md):
// - `{"id": UUID, "kind": "wifiInterface", "name": String, "up": Bool,
//   "connected": {"network": UUID?, "ssid": String?, "bssid": String, "band": String?} | null}`
// - `{"id": UUID, "kind": "wifiNetwork", "ssid": String?, "security": String,
//   "accessPoints": [{"bssid", "frequency", "channel", "band"}], "bars": 0...4, "connected": Bool}`
// `channel` and `band` are derived from `frequency`: written for readers, ignored when read.

extension WirelessInterfaceStatus: Codable {
    private enum CodingKeys: String, CodingKey { case id, kind, name, up, connected }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(DeviceID.self, forKey: .id),
            name: try container.decode(String.self, forKey: .name),
            isUp: try container.decode(Bool.self, forKey: .up),
            connection: try container.decodeIfPresent(WiFiConnectionInfo.self, forKey: .connected)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode("wifiInterface", forKey: .kind)
        try container.encode(name, forKey: .name)
        try container.encode(isUp, forKey: .up)
        try container.encode(connection, forKey: .connected)
    }
}

extension WiFiNetwork: Codable {
    private enum CodingKeys: String, CodingKey { case id, kind, ssid, security, accessPoints, bars, connected }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let bars = try container.decode(Int.self, forKey: .bars)
        guard (0...4).contains(bars) else {
            throw DecodingError.dataCorruptedError(
                forKey: .bars,
                in: container,
                debugDescription: "Bars must be 0 to 4, not \(bars)."
            )
        }
        self.init(
            id: try container.decode(DeviceID.self, forKey: .id),
            ssid: try container.decodeIfPresent(String.self, forKey: .ssid),
            security: try container.decode(WiFiSecurity.self, forKey: .security),
            accessPoints: try container.decode([WiFiAccessPointInfo].self, forKey: .accessPoints),
            bars: bars,
            isConnected: try container.decode(Bool.self, forKey: .connected)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode("wifiNetwork", forKey: .kind)
        try container.encode(ssid, forKey: .ssid)
        try container.encode(security, forKey: .security)
        try container.encode(accessPoints, forKey: .accessPoints)
        try container.encode(bars, forKey: .bars)
        try container.encode(isConnected, forKey: .connected)
    }
}

extension WiFiAccessPointInfo: Codable {
    private enum CodingKeys: String, CodingKey { case bssid, frequency, channel, band }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            bssid: try container.decode(String.self, forKey: .bssid),
            frequency: try container.decode(Int.self, forKey: .frequency)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(bssid, forKey: .bssid)
        try container.encode(frequency, forKey: .frequency)
        try container.encode(channel, forKey: .channel)
        try container.encode(band, forKey: .band)
    }
}
