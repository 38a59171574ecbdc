// The wire form of the Wi-Fi evil-twin baseline's methods (see docs/protocol.md): ListKnownWiFiNetworks,
// TrustWiFiNetwork, UntrustWiFiNetwork, and their error WiFiNetworkNotFound.

extension PeerScanWire {
    /// The error of TrustWiFiNetwork for an SSID not listed now, and of UntrustWiFiNetwork for one not known.
    public static let wifiNetworkNotFoundError = "io.peerscan.WiFiNetworkNotFound"

    /// A network of the evil-twin baseline.
    public struct KnownWiFiNetwork: Codable, Sendable, Hashable {
        /// The `wifiNetwork` item's identifier.
        public var id: String
        /// The SSID.
        public var ssid: String
        /// Its security (``WiFiSecurity``'s raw value).
        public var security: String
        /// The BSSIDs vouched for, sorted.
        public var accessPoints: [String]
        /// Whether this host connected to it.
        public var connected: Bool
        /// Whether a person marked it known.
        public var trusted: Bool

        /// Creates the wire form of a known network.
        public init(_ network: PeerScanModel.KnownWiFiNetwork) {
            id = network.id.description
            ssid = network.ssid
            security = network.security.rawValue
            accessPoints = network.bssids.sorted()
            connected = network.isConnected
            trusted = network.isTrusted
        }
    }

    /// `TrustWiFiNetwork(ssid:security:)` parameters.
    public struct TrustWiFiNetworkParameters: Codable, Sendable, Hashable {
        /// The SSID.
        public var ssid: String
        /// Only its network of this security (a ``WiFiSecurity`` raw value); `nil`: every one listed.
        public var security: String?

        /// Creates parameters.
        public init(ssid: String, security: String? = nil) {
            self.ssid = ssid
            self.security = security
        }
    }

    /// `UntrustWiFiNetwork(ssid:)` parameters.
    public struct UntrustWiFiNetworkParameters: Codable, Sendable, Hashable {
        /// The SSID.
        public var ssid: String

        /// Creates parameters.
        public init(ssid: String) { self.ssid = ssid }
    }

    /// The reply of TrustWiFiNetwork and ListKnownWiFiNetworks: known networks.
    public struct KnownWiFiNetworksReply: Codable, Sendable, Hashable {
        /// The SSID's known networks (TrustWiFiNetwork), or every one (ListKnownWiFiNetworks), by SSID.
        public var networks: [KnownWiFiNetwork]

        /// Creates a reply.
        public init(networks: [KnownWiFiNetwork]) { self.networks = networks }
    }

    /// The reply of UntrustWiFiNetwork: no fields.
    public struct UntrustWiFiNetworkReply: Codable, Sendable {
        /// Creates a reply.
        public init() {}
    }
}

extension PeerScanWire.ErrorReply {
    /// `WiFiNetworkNotFound`: no network of the SSID is listed (to trust) or known (to untrust), and which.
    public static func wifiNetworkNotFound(ssid: String, reason: String) -> PeerScanWire.ErrorReply {
        PeerScanWire.ErrorReply(
            name: PeerScanWire.wifiNetworkNotFoundError,
            parameters: ["ssid": ssid, "reason": reason]
        )
    }
}
