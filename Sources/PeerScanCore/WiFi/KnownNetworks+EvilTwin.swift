import MonitoringLog
import PeerScanModel

extension KnownNetworks {
    /// The `possible evil twin` lines of an access point of a known SSID that is not one of its access points vouched
    /// for: one for a security weaker than every known network of the SSID (`reason=weaker-security`), one for a
    /// vendor (its BSSID's OUI) none of the vouched-for access points has (`reason=other-vendor`, when both are known).
    ///
    /// An access point of an SSID not known, or one vouched for, has none: however often an SSID was heard, only this
    /// host's connections and a person's word make it known.
    ///
    /// - Parameters:
    ///   - ssid: The access point's SSID.
    ///   - security: Its security.
    ///   - bssid: Its BSSID, lowercase.
    ///   - vendorOf: The organization behind a MAC address.
    /// - Returns: The lines, in that order.
    /// - Complexity: O(k) for the k access points vouched for of the SSID.
    public func twinLogs(
        ssid: String,
        security: WiFiSecurity,
        bssid: String,
        vendorOf: (String) -> String?
    ) -> [LogEntry] {
        let baseline = networks(ssid: ssid)
        let bssids = Set(baseline.flatMap(\.bssids))
        guard !baseline.isEmpty, !bssids.contains(bssid) else { return [] }
        let securities = Set(baseline.map(\.security))
        let vendor = vendorOf(bssid)
        let knownVendors = Set(bssids.compactMap(vendorOf))
        var twin = [
            "ssid": ssid, "security": security.rawValue,
            "security.known": securities.sorted { $0.strength < $1.strength }.map(\.rawValue).joined(separator: ","),
            "bssid": bssid, "vendor": vendor ?? "", "vendors.known": knownVendors.sorted().joined(separator: ","),
        ]
        var logs: [LogEntry] = []
        if let weakest = securities.map(\.strength).min(), security.strength < weakest {
            twin["reason"] = "weaker-security"
            logs.append(LogEntry(.possibleEvilTwin, twin))
        }
        if let vendor, !knownVendors.isEmpty, !knownVendors.contains(vendor) {
            twin["reason"] = "other-vendor"
            logs.append(LogEntry(.possibleEvilTwin, twin))
        }
        return logs
    }
}
