import Discovery
import MonitoringLog
import PeerScanModel

/// The Wi-Fi part of the store: the host's wireless interfaces and the access points their scans heard, grouped into
/// networks as the `config` and `networks` sections show them.
///
/// A pure value driven by ``WirelessObservation``s and a `now` on the daemon's ``ScanClock``: it keeps access points
/// by BSSID with when they were last heard and their signal, groups them into networks (SSID + security; a hidden
/// network per BSSID), gives each network bars with hysteresis (``bars(signal:previous:)``), expires access points
/// after ``expiry``, and tells what changed since it was last asked (``takeChanges(now:)``) — nothing when nothing
/// changed — with its log lines and what the registry should record.
///
/// ## Performance
/// A scan result of a access points costs O(a log a); ``takeChanges(now:)`` O(p log p) for the p access points held.
public struct WirelessTable: Sendable {
    /// How long an access point stays after it was last heard (`--wifi-expire`).
    public let expiry: Duration
    /// What is known from before, and since start.
    public private(set) var known: KnownNetworks
    private let vendorOf: @Sendable (String) -> String?
    private var interfaces: [String: WirelessInterface] = [:]
    private var heard: [String: Heard] = [:]
    private var barsByNetwork: [DeviceID: Int] = [:]
    private var shown: [DeviceID: WiFiNetwork] = [:]
    private var logs: [LogEntry] = []
    private var records = WirelessRecords()

    /// An access point and the network it belongs to.
    private struct Heard: Sendable {
        var accessPoint: AccessPoint
        var network: DeviceID
    }

    /// What changed since the table was last asked.
    public struct Changes: Sendable {
        /// The networks that changed (`nil`: removed).
        public var networks: [(id: DeviceID, network: WiFiNetwork?)] = []
        /// The log lines, in order.
        public var logs: [LogEntry] = []
        /// What the registry should record.
        public var records = WirelessRecords()
    }

    /// The signal thresholds of 1, 2, 3 and 4 bars, in dBm.
    public static let barThresholds = [-88, -77, -66, -55]
    /// How far past a threshold a signal must go to change the bars.
    public static let barHysteresis = 3

    /// Creates a table.
    ///
    /// - Parameters:
    ///   - expiry: How long an access point stays after it was last heard.
    ///   - known: What is known of networks from before (the registry's).
    ///   - vendorOf: The organization behind a MAC address (a BSSID's OUI).
    public init(
        expiry: Duration,
        known: KnownNetworks = KnownNetworks(),
        vendorOf: @escaping @Sendable (String) -> String? = { _ in nil }
    ) {
        self.expiry = expiry
        self.known = known
        self.vendorOf = vendorOf
    }

    /// Takes an observation in.
    ///
    /// - Complexity: O(a log a) for a scan result of a access points (plus the vendors of an SSID's known access
    ///   points, for each new BSSID).
    public mutating func apply(_ observation: WirelessObservation, now: Duration) {
        switch observation {
        case .interfaces(let list):
            interfaces = Dictionary(list.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last })
        case .scanResults(_, let accessPoints):
            let before = known
            for accessPoint in accessPoints.sorted(by: { $0.bssid < $1.bssid }) {
                guard now - accessPoint.lastSeen < expiry else { continue }  // an old cache entry
                let bssid = accessPoint.bssid.lowercased()
                let network = DeviceID.make(
                    networkOf: (ssid: accessPoint.ssid, security: accessPoint.security, bssid: bssid)
                )
                if let old = heard[bssid], old.accessPoint.lastSeen > accessPoint.lastSeen, old.network == network {
                    continue  // another interface's older sighting
                }
                if heard[bssid]?.network != network {
                    noteSighting(accessPoint, bssid: bssid, network: network, knownBefore: before)
                }
                heard[bssid] = Heard(accessPoint: accessPoint, network: network)
            }
        }
    }

    /// The log lines and records of an access point heard for the first time since start (or since it left), and
    /// what it teaches.
    private mutating func noteSighting(
        _ accessPoint: AccessPoint,
        bssid: String,
        network: DeviceID,
        knownBefore before: KnownNetworks
    ) {
        records.sightings.append(
            .init(network: network, ssid: accessPoint.ssid, security: accessPoint.security, bssid: bssid)
        )
        let band = WiFiBand(frequency: accessPoint.frequency)?.rawValue ?? ""
        var fields = [
            "network": network.description, "ssid": accessPoint.ssid ?? "",
            "security": accessPoint.security.rawValue,
        ]
        if !known.networkIDs.contains(network) {
            logs.append(LogEntry(.newWiFiNetwork, fields.merging(["bssid": bssid, "band": band]) { $1 }))
        }
        if let ssid = accessPoint.ssid, let securities = before.securitiesBySSID[ssid], !securities.isEmpty,
            !(known.bssidsBySSID[ssid] ?? []).contains(bssid)
        {
            let vendor = vendorOf(bssid)
            fields.merge(["bssid": bssid, "band": band, "vendor": vendor ?? ""]) { $1 }
            logs.append(LogEntry(.newAccessPoint, fields))
            let knownSecurity = securities.sorted { $0.strength < $1.strength }.map(\.rawValue)
                .joined(separator: ",")
            let knownVendors = Set((before.bssidsBySSID[ssid] ?? []).compactMap(vendorOf))
            var twin = [
                "ssid": ssid, "security": accessPoint.security.rawValue, "security.known": knownSecurity,
                "bssid": bssid, "vendor": vendor ?? "", "vendors.known": knownVendors.sorted().joined(separator: ","),
            ]
            if !securities.contains(accessPoint.security),
                accessPoint.security.strength < securities.map(\.strength).min()!
            {
                twin["reason"] = "weaker-security"
                logs.append(LogEntry(.possibleEvilTwin, twin))
            }
            if let vendor, !knownVendors.isEmpty, !knownVendors.contains(vendor) {
                twin["reason"] = "other-vendor"
                logs.append(LogEntry(.possibleEvilTwin, twin))
            }
        }
        known.insert(network: network, ssid: accessPoint.ssid, security: accessPoint.security, bssid: bssid)
    }

    /// The wireless interfaces as the `config` section shows them, sorted by name.
    public var interfaceStatuses: [WirelessInterfaceStatus] {
        interfaces.values.sorted { $0.name < $1.name }.map { interface in
            WirelessInterfaceStatus(
                id: DeviceID.make(wirelessInterface: interface.name),
                name: interface.name,
                isUp: interface.isUp,
                connection: interface.connection.map { connection in
                    let bssid = connection.bssid.lowercased()
                    let ap = heard[bssid]
                    return WiFiConnectionInfo(
                        network: ap?.network,
                        ssid: connection.ssid ?? ap?.accessPoint.ssid,
                        bssid: bssid,
                        band: WiFiBand(frequency: connection.frequency)
                    )
                }
            )
        }
    }

    /// When the next access point expires, on the table's clock; `nil` if none is held.
    public var nextExpiry: Duration? {
        heard.values.map(\.accessPoint.lastSeen).min().map { $0 + expiry }
    }

    /// Forgets every interface and access point (scanning switched off: the source reports them again when it is
    /// switched on). What is known stays.
    public mutating func removeAll() {
        interfaces = [:]
        heard = [:]
        barsByNetwork = [:]
        shown = [:]
    }

    /// Expires what was not heard for ``expiry`` and returns the networks that changed since the last call, with the
    /// log lines and records since then.
    ///
    /// - Complexity: O(p log p) for the p access points held.
    public mutating func takeChanges(now: Duration) -> Changes {
        var changes = Changes()
        heard = heard.filter { now - $0.value.accessPoint.lastSeen < expiry }
        let connectedBSSIDs = Set(interfaces.values.compactMap { $0.isUp ? $0.connection?.bssid.lowercased() : nil })
        var members: [DeviceID: [(bssid: String, heard: Heard)]] = [:]
        for (bssid, entry) in heard { members[entry.network, default: []].append((bssid, entry)) }
        var current: [DeviceID: WiFiNetwork] = [:]
        for (id, entries) in members {
            let sorted = entries.sorted { $0.bssid < $1.bssid }
            let first = sorted[0].heard.accessPoint
            let strongest = sorted.compactMap(\.heard.accessPoint.signal).max()
            let bars = strongest.map { Self.bars(signal: $0, previous: barsByNetwork[id]) } ?? barsByNetwork[id] ?? 0
            barsByNetwork[id] = bars
            current[id] = WiFiNetwork(
                id: id,
                ssid: first.ssid,
                security: first.security,
                accessPoints: sorted.map {
                    WiFiAccessPointInfo(bssid: $0.bssid, frequency: $0.heard.accessPoint.frequency)
                },
                bars: bars,
                isConnected: sorted.contains {
                    // The interfaces' own connections are current; a scan result's flag only until one is reported.
                    interfaces.isEmpty ? $0.heard.accessPoint.isConnected : connectedBSSIDs.contains($0.bssid)
                }
            )
        }
        for (id, old) in shown where current[id] == nil {
            barsByNetwork[id] = nil
            changes.networks.append((id, nil))
            changes.logs.append(
                LogEntry(
                    .wifiNetworkGone,
                    ["network": id.description, "ssid": old.ssid ?? "", "security": old.security.rawValue]
                )
            )
        }
        for (id, network) in current where shown[id] != network { changes.networks.append((id, network)) }
        changes.networks.sort { $0.id < $1.id }
        shown = current
        changes.logs = logs + changes.logs
        changes.records = records
        logs = []
        records = WirelessRecords()
        return changes
    }

    /// The bars of a signal, given the bars shown before: the plain count of thresholds reached at first; after
    /// that a bar is gained only when the signal is ``barHysteresis`` dB above its threshold and lost only when it
    /// is that far below, so that signals moving by ±2 dB around a threshold change nothing.
    ///
    /// - Parameters:
    ///   - signal: The strongest access point's signal, in dBm.
    ///   - previous: The bars shown before, or `nil`.
    /// - Returns: 0 to 4.
    public static func bars(signal: Int, previous: Int?) -> Int {
        let plain = barThresholds.filter { signal >= $0 }.count
        guard let previous else { return plain }
        let gained = barThresholds.filter { signal >= $0 + barHysteresis }.count
        let kept = barThresholds.filter { signal > $0 - barHysteresis }.count
        if gained > previous { return gained }
        if kept < previous { return kept }
        return previous
    }
}
