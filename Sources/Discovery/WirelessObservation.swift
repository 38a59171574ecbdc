import DiscoveryTerms

/// What the Wi-Fi source observed: the host's wireless interfaces and the access points their scans found, as the
/// kernel (nl80211) reports them. The store's wireless table turns them into the `config` section's interface items
/// and the `networks` section's Wi-Fi networks.
public enum WirelessObservation: Sendable, Equatable {
    /// The host's wireless interfaces as a whole (at start, and whenever one appears, goes, goes up or down, or
    /// connects or disconnects): it replaces every interface reported before.
    case interfaces([WirelessInterface])
    /// The kernel's scan results on one interface after a scan finished (its whole cache for that interface,
    /// cfg80211 keeps an access point ~30 s after it was last heard): what a scan confirms gets its `lastSeen`; an
    /// access point missing from it is not removed at once — the table expires it after `--wifi-expire`.
    case scanResults(interface: String, accessPoints: [AccessPoint])
}

/// A wireless interface of this host (nl80211's `NL80211_CMD_GET_INTERFACE`, station mode).
public struct WirelessInterface: Hashable, Sendable {
    /// The interface name, e.g. `wlan0`.
    public var name: String
    /// Whether it is up (`IFF_UP`).
    public var isUp: Bool
    /// The access point it is connected to (associated with), or `nil`.
    public var connection: WirelessConnection?

    /// Creates an interface.
    public init(name: String, isUp: Bool, connection: WirelessConnection?) {
        self.name = name
        self.isUp = isUp
        self.connection = connection
    }
}

/// The access point a wireless interface is connected to.
public struct WirelessConnection: Hashable, Sendable {
    /// Its BSSID, lowercase `aa:bb:cc:dd:ee:ff`.
    public var bssid: String
    /// The network's SSID; `nil` if the kernel did not say (the table then takes it from the scan results).
    public var ssid: String?
    /// The channel's centre frequency in MHz.
    public var frequency: Int

    /// Creates a connection.
    public init(bssid: String, ssid: String?, frequency: Int) {
        self.bssid = bssid
        self.ssid = ssid
        self.frequency = frequency
    }
}

/// One access point (a BSS) as the kernel's scan results hold it.
public struct AccessPoint: Hashable, Sendable {
    /// Its BSSID, lowercase `aa:bb:cc:dd:ee:ff`.
    public var bssid: String
    /// The SSID from its beacon or probe response, as text (invalid UTF-8 replaced); `nil` for a hidden network (an
    /// empty or all-zero SSID).
    public var ssid: String?
    /// Its security, from the RSN and WPA information elements and the privacy capability bit.
    public var security: WiFiSecurity
    /// The channel's centre frequency in MHz.
    public var frequency: Int
    /// The received signal in dBm (`NL80211_BSS_SIGNAL_MBM` / 100); `nil` if the driver did not say.
    public var signal: Int?
    /// When it was last heard, on the daemon's clock (``ScanClock``), from the kernel's `NL80211_BSS_SEEN_MS_AGO`.
    public var lastSeen: Duration
    /// Whether this interface is associated with it (`NL80211_BSS_STATUS`).
    public var isConnected: Bool

    /// Creates an access point.
    public init(
        bssid: String,
        ssid: String?,
        security: WiFiSecurity,
        frequency: Int,
        signal: Int?,
        lastSeen: Duration,
        isConnected: Bool
    ) {
        self.bssid = bssid
        self.ssid = ssid
        self.security = security
        self.frequency = frequency
        self.signal = signal
        self.lastSeen = lastSeen
        self.isConnected = isConnected
    }
}
