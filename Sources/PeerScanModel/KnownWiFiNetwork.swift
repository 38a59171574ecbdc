import DiscoveryTerms

/// A Wi-Fi network of the evil-twin baseline: one this host connected to, or one a person marked known
/// (`peerscanctl wifi trust`), with the access points vouched for — those this host connected to, and those heard
/// when the person marked it.
///
/// Only these networks are compared with what is heard: an SSID merely heard, however often, teaches nothing (a
/// passer-by's beacon must not decide what the real network looks like).
public struct KnownWiFiNetwork: Hashable, Sendable {
    /// The network's identifier (its SSID and security).
    public var id: DeviceID
    /// The SSID.
    public var ssid: String
    /// The security it was known with.
    public var security: WiFiSecurity
    /// The access points vouched for (lowercase BSSIDs).
    public var bssids: Set<String>
    /// Whether this host connected to it.
    public var isConnected: Bool
    /// Whether a person marked it known.
    public var isTrusted: Bool

    /// Creates a known network.
    public init(
        id: DeviceID,
        ssid: String,
        security: WiFiSecurity,
        bssids: Set<String>,
        isConnected: Bool,
        isTrusted: Bool
    ) {
        self.id = id
        self.ssid = ssid
        self.security = security
        self.bssids = bssids
        self.isConnected = isConnected
        self.isTrusted = isTrusted
    }
}

/// A person's change of the evil-twin baseline.
public enum WiFiTrustEdit: Hashable, Sendable {
    /// Mark the networks of this SSID listed now (of this security only, if given) known, with their access points.
    case trust(ssid: String, security: WiFiSecurity?)
    /// Make every network of this SSID unknown again (connected to or trusted).
    case untrust(ssid: String)

    /// The SSID concerned.
    public var ssid: String {
        switch self {
        case .trust(let ssid, _), .untrust(let ssid): ssid
        }
    }
}
