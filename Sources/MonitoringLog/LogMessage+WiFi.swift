// The Wi-Fi messages of the catalogue (issue 25): the store's wireless table logs the networks, the Wi-Fi source its
// own state. docs/operations.md's log table lists them too.

extension LogMessage {
    /// The keys of a network on a Wi-Fi line: `network` (its id), `ssid` (empty for a hidden one), `security`.
    public static let wifiNetworkKeys = ["network", "ssid", "security"]

    /// A Wi-Fi network never seen before (not in the registry), with its first access point.
    public static let newWiFiNetwork = LogMessage("new wifi network", .info, keys: wifiNetworkKeys + ["bssid", "band"])
    /// A Wi-Fi network left the snapshot: none of its access points was heard for `--wifi-expire`.
    public static let wifiNetworkGone = LogMessage("wifi network gone", .info, keys: wifiNetworkKeys)
    /// A BSSID never seen before for an SSID already known.
    public static let newAccessPoint = LogMessage(
        "new access point",
        .notice,
        keys: wifiNetworkKeys + ["bssid", "band", "vendor"]
    )
    /// A known SSID with weaker security than all its known networks (`reason=weaker-security`), or from an access
    /// point of another vendor than all its known ones (`reason=other-vendor`).
    public static let possibleEvilTwin = LogMessage(
        "possible evil twin",
        .warning,
        keys: ["ssid", "security", "security.known", "bssid", "vendor", "vendors.known", "reason"]
    )
}
