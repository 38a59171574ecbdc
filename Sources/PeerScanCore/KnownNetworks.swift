import PeerScanModel

/// What is known of Wi-Fi networks from before (the registry's) and since start: which networks were seen, and, per
/// SSID, its securities and BSSIDs — what the evil-twin checks compare a new access point with.
public struct KnownNetworks: Sendable, Equatable {
    /// The networks seen before.
    public var networkIDs: Set<DeviceID>
    /// The securities each SSID was seen with.
    public var securitiesBySSID: [String: Set<WiFiSecurity>]
    /// The BSSIDs each SSID was seen from (lowercase).
    public var bssidsBySSID: [String: Set<String>]

    /// Creates what is known.
    public init(
        networkIDs: Set<DeviceID> = [],
        securitiesBySSID: [String: Set<WiFiSecurity>] = [:],
        bssidsBySSID: [String: Set<String>] = [:]
    ) {
        self.networkIDs = networkIDs
        self.securitiesBySSID = securitiesBySSID
        self.bssidsBySSID = bssidsBySSID
    }

    /// Adds a network and one of its access points.
    public mutating func insert(network: DeviceID, ssid: String?, security: WiFiSecurity, bssid: String) {
        networkIDs.insert(network)
        guard let ssid else { return }
        securitiesBySSID[ssid, default: []].insert(security)
        bssidsBySSID[ssid, default: []].insert(bssid.lowercased())
    }
}

/// What a batch taught about Wi-Fi networks, for the registry.
public struct WirelessRecords: Sendable, Equatable {
    /// A network and one of its access points, heard in the batch.
    public struct Sighting: Sendable, Hashable {
        public var network: DeviceID
        public var ssid: String?
        public var security: WiFiSecurity
        public var bssid: String

        public init(network: DeviceID, ssid: String?, security: WiFiSecurity, bssid: String) {
            self.network = network
            self.ssid = ssid
            self.security = security
            self.bssid = bssid
        }
    }

    /// Every access point heard (with its network): the registry inserts the new ones and moves `last_seen`.
    public var sightings: [Sighting]

    public init(sightings: [Sighting] = []) { self.sightings = sightings }

    public var isEmpty: Bool { sightings.isEmpty }
}
