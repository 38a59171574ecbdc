import PeerScanModel

extension DeviceID {
    /// The identifier of a named Wi-Fi network: a name-based UUID of `wifi:<ssid>|<security>` in ``namespace`` (the
    /// same network has the same id on every scanner).
    ///
    /// - Complexity: O(n) in the length of `ssid` (one SHA-1).
    public static func make(ssid: String, security: WiFiSecurity) -> DeviceID {
        DeviceID(makeNameBased(namespace: namespace, name: "wifi:\(ssid)|\(security.rawValue)"))
    }

    /// The identifier of a hidden Wi-Fi network: a name-based UUID of `wifi-bssid:<bssid>` (lowercase).
    public static func make(hiddenNetworkBSSID bssid: String) -> DeviceID {
        DeviceID(makeNameBased(namespace: namespace, name: "wifi-bssid:\(bssid.lowercased())"))
    }

    /// The identifier of a wireless interface's item: a name-based UUID of `wifi-interface:<name>`.
    public static func make(wirelessInterface name: String) -> DeviceID {
        DeviceID(makeNameBased(namespace: namespace, name: "wifi-interface:\(name)"))
    }

    /// The identifier of the network an access point belongs to.
    public static func make(networkOf accessPoint: (ssid: String?, security: WiFiSecurity, bssid: String)) -> DeviceID {
        if let ssid = accessPoint.ssid { return make(ssid: ssid, security: accessPoint.security) }
        return make(hiddenNetworkBSSID: accessPoint.bssid)
    }
}
