import DiscoveryTerms
import Foundation

/// A Wi-Fi network as the `networks` section shows it: an SSID with one security (one item for every access point of
/// that SSID with that security), or a hidden network's single access point.
///
/// Raw signal levels and last-seen times are not content: a scan that changes nothing changes no item.
public struct WiFiNetwork: Hashable, Sendable {
    /// Its identifier: a name-based UUID of `wifi:<ssid>|<security>`, or of `wifi-bssid:<bssid>` for a hidden
    /// network (the same on every scanner).
    public var id: DeviceID
    /// The SSID; `nil` for a hidden network.
    public var ssid: String?
    /// The security it advertises.
    public var security: WiFiSecurity
    /// Its access points, sorted by BSSID.
    public var accessPoints: [WiFiAccessPointInfo]
    /// The signal of its strongest access point as bars, 0 to 4 (with hysteresis: see the store's wireless table).
    public var bars: Int
    /// Whether one of this host's wireless interfaces is connected to one of its access points.
    public var isConnected: Bool

    /// Creates a network.
    public init(
        id: DeviceID,
        ssid: String?,
        security: WiFiSecurity,
        accessPoints: [WiFiAccessPointInfo],
        bars: Int,
        isConnected: Bool
    ) {
        self.id = id
        self.ssid = ssid
        self.security = security
        self.accessPoints = accessPoints
        self.bars = bars
        self.isConnected = isConnected
    }

    /// The bands of its access points, in ``WiFiBand``'s order, without repeats.
    public var bands: [WiFiBand] {
        let present = Set(accessPoints.compactMap(\.band))
        return WiFiBand.allCases.filter(present.contains)
    }

    /// The order of the `networks` section: connected first, then by SSID ignoring case (hidden networks last), then
    /// by identifier.
    public static func displaysBefore(_ lhs: WiFiNetwork, _ rhs: WiFiNetwork) -> Bool {
        if lhs.isConnected != rhs.isConnected { return lhs.isConnected }
        switch (lhs.ssid, rhs.ssid) {
        case (nil, .some): return false
        case (.some, nil): return true
        case (.some(let left), .some(let right)):
            let order = left.compare(right, options: .caseInsensitive)
            if order != .orderedSame { return order == .orderedAscending }
            if left != right { return left < right }
        case (nil, nil): break
        }
        return lhs.id < rhs.id
    }
}

/// One access point of a ``WiFiNetwork``.
public struct WiFiAccessPointInfo: Hashable, Sendable {
    /// Its BSSID, lowercase `aa:bb:cc:dd:ee:ff`.
    public var bssid: String
    /// The channel's centre frequency in MHz.
    public var frequency: Int

    /// Creates an access point.
    public init(bssid: String, frequency: Int) {
        self.bssid = bssid
        self.frequency = frequency
    }

    /// The channel number (``wifiChannel(frequency:)``).
    public var channel: Int? { wifiChannel(frequency: frequency) }
    /// The band.
    public var band: WiFiBand? { WiFiBand(frequency: frequency) }
}

/// A wireless interface of the scanning host as the `config` section shows it.
public struct WirelessInterfaceStatus: Hashable, Sendable {
    /// Its identifier: a name-based UUID of `wifi-interface:<name>`.
    public var id: DeviceID
    /// The interface name, e.g. `wlan0`.
    public var name: String
    /// Whether it is up.
    public var isUp: Bool
    /// The network it is connected to, or `nil`.
    public var connection: WiFiConnectionInfo?

    /// Creates an interface status.
    public init(id: DeviceID, name: String, isUp: Bool, connection: WiFiConnectionInfo?) {
        self.id = id
        self.name = name
        self.isUp = isUp
        self.connection = connection
    }
}

/// The network a wireless interface is connected to.
public struct WiFiConnectionInfo: Hashable, Sendable, Codable {
    /// The ``WiFiNetwork``'s identifier; `nil` while its access point is in no scan result (its security unknown).
    public var network: DeviceID?
    /// The SSID, if known.
    public var ssid: String?
    /// The access point's BSSID.
    public var bssid: String
    /// The band of the channel.
    public var band: WiFiBand?

    /// Creates a connection.
    public init(network: DeviceID?, ssid: String?, bssid: String, band: WiFiBand?) {
        self.network = network
        self.ssid = ssid
        self.bssid = bssid
        self.band = band
    }

    private enum CodingKeys: String, CodingKey { case network, ssid, bssid, band }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(network, forKey: .network)
        try container.encode(ssid, forKey: .ssid)
        try container.encode(bssid, forKey: .bssid)
        try container.encode(band, forKey: .band)
    }
}
