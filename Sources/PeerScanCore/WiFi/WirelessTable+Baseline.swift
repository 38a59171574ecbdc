import Discovery
import MonitoringLog
import PeerScanModel

/// A person's change of the evil-twin baseline that cannot be made.
public struct WiFiTrustError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: Sendable, Hashable {
        /// No network of the SSID (with the security asked for) is listed now: what is trusted is what is heard.
        case notHeard
        /// No network of the SSID is known.
        case notKnown
    }

    /// What went wrong.
    public var code: Code
    /// The SSID concerned.
    public var ssid: String

    /// Creates an error.
    public init(_ code: Code, ssid: String) {
        self.code = code
        self.ssid = ssid
    }

    public var description: String {
        switch code {
        case .notHeard: "no Wi-Fi network \(ssid.debugDescription) is listed now"
        case .notKnown: "no Wi-Fi network \(ssid.debugDescription) is known"
        }
    }
}

// The evil-twin baseline as the table keeps it: what a first sighting logs and records, what the host's connections
// teach, and a person's trust.

extension WirelessTable {
    /// The log lines and records of an access point heard for the first time since start (or since it left): `new
    /// wifi network` when its network was not listed, `new access point` and the evil-twin checks when it belongs to a
    /// known SSID without being one of its access points vouched for.
    mutating func noteSighting(_ accessPoint: AccessPoint, bssid: String, network: DeviceID) {
        records.sightings.append(
            .init(network: network, ssid: accessPoint.ssid, security: accessPoint.security, bssid: bssid)
        )
        let band = WiFiBand(frequency: accessPoint.frequency)?.rawValue ?? ""
        let fields = [
            "network": network.description, "ssid": accessPoint.ssid ?? "", "security": accessPoint.security.rawValue,
            "bssid": bssid, "band": band,
        ]
        if members[network] == nil { logs.append(LogEntry(.newWiFiNetwork, fields)) }
        guard let ssid = accessPoint.ssid else { return }
        let baseline = known.networks(ssid: ssid)
        guard !baseline.isEmpty, !baseline.contains(where: { $0.bssids.contains(bssid) }) else { return }
        logs.append(LogEntry(.newAccessPoint, fields.merging(["vendor": vendorOf(bssid) ?? ""]) { $1 }))
        logs += known.twinLogs(ssid: ssid, security: accessPoint.security, bssid: bssid, vendorOf: vendorOf)
    }

    /// Learns the networks of the access points this host is connected to (those heard: their security is known),
    /// and checks the access points held of an SSID that became known.
    ///
    /// - Complexity: O(c) for c connections, plus the access points held for an SSID whose baseline changed.
    mutating func learnConnections(_ bssids: Set<String>) {
        var changedSSIDs: Set<String> = []
        for bssid in bssids.sorted() {
            guard let entry = heard[bssid], let ssid = entry.accessPoint.ssid else { continue }
            let changed = known.noteConnection(
                network: entry.network,
                ssid: ssid,
                security: entry.accessPoint.security,
                bssid: bssid
            )
            guard let changed else { continue }
            records.known[changed.id] = .some(changed)
            changedSSIDs.insert(ssid)
        }
        for ssid in changedSSIDs.sorted() { checkHeld(ssid: ssid) }
    }

    /// The evil-twin checks of the access points held of an SSID against its baseline now (an access point heard
    /// before the SSID became known is checked when it does).
    private mutating func checkHeld(ssid: String) {
        for (bssid, entry) in heard.sorted(by: { $0.key < $1.key }) where entry.accessPoint.ssid == ssid {
            logs += known.twinLogs(ssid: ssid, security: entry.accessPoint.security, bssid: bssid, vendorOf: vendorOf)
        }
    }

    /// Applies a person's change of the baseline.
    ///
    /// - Trust: the networks of the SSID listed now (of the security given, if any) become known, with the access
    ///   points heard of them now; an access point of the SSID held and not among them is checked at once.
    /// - Untrust: every network of the SSID leaves the baseline, those this host connected to included (a connection
    ///   that is still up makes its network known again at the next observation).
    ///
    /// - Returns: The SSID's known networks now.
    /// - Throws: ``WiFiTrustError`` with ``WiFiTrustError/Code/notHeard`` when nothing of the SSID is listed to trust,
    ///   ``WiFiTrustError/Code/notKnown`` when nothing of it is known to untrust.
    /// - Complexity: O(n + p) for the n networks and p access points held.
    public mutating func apply(_ edit: WiFiTrustEdit) throws(WiFiTrustError) -> [KnownWiFiNetwork] {
        switch edit {
        case .trust(let ssid, let security):
            let listed = members.compactMap { id, bssids -> (DeviceID, WiFiSecurity, Set<String>)? in
                guard let point = bssids.first.flatMap({ heard[$0]?.accessPoint }), point.ssid == ssid,
                    security == nil || point.security == security
                else { return nil }
                return (id, point.security, bssids)
            }
            guard !listed.isEmpty else { throw WiFiTrustError(.notHeard, ssid: ssid) }
            for (id, security, bssids) in listed.sorted(by: { $0.0 < $1.0 }) {
                records.known[id] = .some(known.trust(network: id, ssid: ssid, security: security, bssids: bssids))
            }
            checkHeld(ssid: ssid)
        case .untrust(let ssid):
            let removed = known.remove(ssid: ssid)
            guard !removed.isEmpty else { throw WiFiTrustError(.notKnown, ssid: ssid) }
            for id in removed { records.known[id] = .some(nil) }
        }
        return known.networks(ssid: edit.ssid)
    }
}
