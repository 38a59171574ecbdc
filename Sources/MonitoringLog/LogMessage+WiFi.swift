// The Wi-Fi messages of the catalogue (issue 25): the store's wireless table logs the networks, the Wi-Fi source its
// own state, the registry what it forgets, the interface a person's trust. docs/operations.md's log table lists them
// too.

extension LogMessage {
    /// The keys of a network on a Wi-Fi line: `network` (its id), `ssid` (empty for a hidden one), `security`.
    public static let wifiNetworkKeys = ["network", "ssid", "security"]

    /// A Wi-Fi network entered the list (heard for the first time since start, or since it left), with its first
    /// access point.
    public static let newWiFiNetwork = LogMessage("new wifi network", .info, keys: wifiNetworkKeys + ["bssid", "band"])
    /// A Wi-Fi network left the snapshot: none of its access points was heard for `--wifi-expire`.
    public static let wifiNetworkGone = LogMessage("wifi network gone", .info, keys: wifiNetworkKeys)
    /// An access point of a known SSID (the evil-twin baseline) that is none of its access points vouched for.
    public static let newAccessPoint = LogMessage(
        "new access point",
        .notice,
        keys: wifiNetworkKeys + ["bssid", "band", "vendor"]
    )
    /// An access point of a known SSID with weaker security than all its known networks (`reason=weaker-security`),
    /// or of another vendor than all its access points vouched for (`reason=other-vendor`).
    public static let possibleEvilTwin = LogMessage(
        "possible evil twin",
        .warning,
        keys: ["ssid", "security", "security.known", "bssid", "vendor", "vendors.known", "reason"]
    )
    /// The registry forgot Wi-Fi networks and access points not heard for `--forget-after`, or beyond the most it
    /// keeps (`networks.trimmed`, `bssids.trimmed`: of the counts, those trimmed as the oldest heard beyond the limit
    /// `--wifi-networks-max` sets); the baseline's stay.
    public static let registryForgettingNetworks = LogMessage(
        "registry forgetting wifi",
        .info,
        keys: ["networks", "bssids", "networks.trimmed", "bssids.trimmed"]
    )
    /// A client marked the networks of an SSID known (TrustWiFiNetwork): `networks` counts its known networks now.
    public static let clientTrustedWiFiNetwork = LogMessage(
        "client trusted wifi network",
        .notice,
        keys: connectionKeys + ["ssid", "security", "networks"]
    )
    /// A client made the networks of an SSID unknown (UntrustWiFiNetwork).
    public static let clientUntrustedWiFiNetwork = LogMessage(
        "client untrusted wifi network",
        .notice,
        keys: connectionKeys + ["ssid"]
    )
}
