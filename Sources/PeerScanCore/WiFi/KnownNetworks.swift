import PeerScanModel

/// The evil-twin baseline: the Wi-Fi networks this host connected to and those a person marked known, by SSID — what
/// the evil-twin checks compare an access point with (``WirelessTable``).
///
/// Nothing merely heard enters it, so it holds what this host and its people vouched for, not what is in the air: its
/// size is that of their networks, whatever passes by.
///
/// ## Performance
/// Lookups by SSID are O(1) plus the SSID's networks (one per security).
public struct KnownNetworks: Sendable, Equatable {
    /// The known networks, by identifier.
    public private(set) var networks: [DeviceID: KnownWiFiNetwork]
    private var idsBySSID: [String: Set<DeviceID>]

    /// Creates a baseline.
    public init(_ networks: [KnownWiFiNetwork] = []) {
        self.networks = [:]
        self.idsBySSID = [:]
        for network in networks { update(network) }
    }

    /// Whether the network is known.
    public func contains(_ id: DeviceID) -> Bool { networks[id] != nil }

    /// The known networks of an SSID, by identifier.
    public func networks(ssid: String) -> [KnownWiFiNetwork] {
        (idsBySSID[ssid] ?? []).compactMap { networks[$0] }.sorted { $0.id < $1.id }
    }

    /// Every known network, by SSID, then security.
    public var all: [KnownWiFiNetwork] {
        networks.values.sorted { ($0.ssid, $0.security.strength, $0.id) < ($1.ssid, $1.security.strength, $1.id) }
    }

    /// Notes that this host is connected to `bssid` of a network.
    ///
    /// - Returns: The network as it is known now, if that changed it.
    public mutating func noteConnection(
        network id: DeviceID,
        ssid: String,
        security: WiFiSecurity,
        bssid: String
    ) -> KnownWiFiNetwork? {
        var network = known(id, ssid: ssid, security: security)
        let before = networks[id]
        network.isConnected = true
        network.bssids.insert(bssid.lowercased())
        guard network != before else { return nil }
        update(network)
        return network
    }

    /// The network `id` as known, or a new entry for it (neither connected nor trusted yet).
    private func known(_ id: DeviceID, ssid: String, security: WiFiSecurity) -> KnownWiFiNetwork {
        networks[id]
            ?? KnownWiFiNetwork(
                id: id,
                ssid: ssid,
                security: security,
                bssids: [],
                isConnected: false,
                isTrusted: false
            )
    }

    /// Marks a network known (a person's word), with the access points heard of it now.
    ///
    /// - Returns: The network as it is known now.
    public mutating func trust(
        network id: DeviceID,
        ssid: String,
        security: WiFiSecurity,
        bssids: Set<String>
    ) -> KnownWiFiNetwork {
        var network = known(id, ssid: ssid, security: security)
        network.isTrusted = true
        network.bssids.formUnion(bssids.map { $0.lowercased() })
        update(network)
        return network
    }

    /// Removes every network of an SSID.
    ///
    /// - Returns: The networks removed.
    public mutating func remove(ssid: String) -> [DeviceID] {
        let ids = (idsBySSID.removeValue(forKey: ssid) ?? []).sorted()
        for id in ids { networks[id] = nil }
        return ids
    }

    private mutating func update(_ network: KnownWiFiNetwork) {
        networks[network.id] = network
        idsBySSID[network.ssid, default: []].insert(network.id)
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

    /// Every access point heard when it was first heard since start (or since it left), and again at most every
    /// ``WirelessTable/sightingInterval`` while it stays: the registry inserts the new ones and moves `last_seen`.
    public var sightings: [Sighting]
    /// The changes of the evil-twin baseline: each network as it is known now, `nil` for one no longer known.
    public var known: [DeviceID: KnownWiFiNetwork?]

    public init(sightings: [Sighting] = [], known: [DeviceID: KnownWiFiNetwork?] = [:]) {
        self.sightings = sightings
        self.known = known
    }

    public var isEmpty: Bool { sightings.isEmpty && known.isEmpty }
}
