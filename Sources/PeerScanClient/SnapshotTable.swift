import PeerScanModel

/// The human-readable form of a snapshot, as `peerscanctl list` prints it: the configuration (with a `wifi` line per
/// wireless interface), then the Wi-Fi networks as a settings screen lists them (``WiFiText``) if there are any, then
/// a table with one row per device.
///
/// ```
/// scanning    on
/// host        scanner.local
/// avahi       running
/// interfaces  lan0
///
/// NAME               STATE    HOST         MAC                VENDOR       ADDRESSES                       SERVICES
/// Alpha              online   alpha.local  3c:22:fb:44:55:66  Apple, Inc.  10.231.0.10,fd70:7363:616e::10  _ssh._tcp
/// 00:00:0c:12:34:56  offline  -            00:00:0c:12:34:56  Cisco        10.231.0.20                     -
/// ```
/// A device without a name shows its first MAC address (``Device/label``); an offline device says so in the STATE
/// column (and its row is dimmed on a terminal by `peerscanctl list`).
/// Text published by devices is escaped (``TerminalText/escapingControlCharacters(_:)``); nothing is truncated.
public enum SnapshotTable {
    /// The lines of the rendering, without line terminators.
    ///
    /// - Parameter snapshot: The snapshot to show.
    /// - Complexity: O(n) in the size of the snapshot.
    public static func render(_ snapshot: ScanSnapshot) -> [String] {
        var lines = configuration(of: snapshot)
        lines.append("")
        guard let items = snapshot.items(inSection: .networks) else {
            lines.append("Scanning is off: no devices are tracked. Switch it on with: peerscanctl scanning on")
            return lines
        }
        let networks = items.compactMap(\.wifiNetwork)
        if !networks.isEmpty { lines += WiFiText.table(networks) + [""] }
        let devices = items.compactMap(\.device)
        guard !devices.isEmpty else {
            lines.append("No devices found yet.")
            return lines
        }
        let rows =
            [["NAME", "STATE", "HOST", "MAC", "VENDOR", "ADDRESSES", "SERVICES"]]
            + devices.map { device in
                [
                    escaped(device.label),
                    device.online ? "online" : "offline",
                    device.hostName.map(escaped) ?? "-",
                    device.macAddresses.isEmpty ? "-" : device.macAddresses.joined(separator: ","),
                    BluetoothText.vendor(of: device).map(escaped) ?? "-",
                    escaped(
                        ([device.addresses.joined(separator: ",")].filter { !$0.isEmpty }
                            + [BluetoothText.summary(of: device)].compactMap { $0 }).joined(separator: " ")
                    ).nonEmpty ?? "-",
                    device.services.isEmpty ? "-" : escaped(serviceTypes(of: device).joined(separator: ",")),
                ]
            }
        return lines + columns(rows)
    }

    /// The configuration lines: scanning, host name, Avahi's state (and reason), interfaces, and the system's limits
    /// reached (only when one is).
    static func configuration(of snapshot: ScanSnapshot) -> [String] {
        var fields: [(String, String)] = []
        for item in snapshot.items(inSection: .config) ?? [] {
            switch item {
            case .scanning(let enabled):
                fields.append(("scanning", enabled ? "on" : "off"))
            case .host(let status):
                fields.append(("host", status.hostName.map(escaped) ?? "(not known yet)"))
                fields.append(("avahi", avahiState(status.sourceState)))
                fields.append(
                    ("interfaces", status.interfaces.isEmpty ? "-" : escaped(status.interfaces.joined(separator: ",")))
                )
                if !status.limits.isEmpty { fields.append(("limits", limits(status.limits))) }
            case .wifiInterface(let interface):
                fields.append(("wifi", WiFiText.summary(of: interface)))
            case .device, .wifiNetwork:
                break
            }
        }
        return columns(fields.map { [$0.0, $0.1] })
    }

    /// Avahi's state and, for `failure` and `unavailable`, its reason: `unavailable (Daemon not running)`.
    static func avahiState(_ state: SourceState) -> String {
        guard let reason = state.reason, !reason.isEmpty else { return state.name }
        return "\(state.name) (\(escaped(reason)))"
    }

    /// The system's limits reached, each with its count and the setting to raise: `neighbour-table ipv4 1024
    /// (raise net.ipv4.neigh.default.gc_thresh3=1024); avahi-cache eth0 ipv4 ~4100 (raise cache-entries-max=4096)`
    /// (`~`: an estimate).
    static func limits(_ limits: [SystemLimit]) -> String {
        limits.map { limit in
            "\(escaped(limit.name)) \(limit.isEstimate ? "~" : "")\(limit.value) (raise \(escaped(limit.setting)))"
        }.joined(separator: "; ")
    }

    /// The service types a device offers, each once, in order.
    static func serviceTypes(of device: Device) -> [String] {
        var seen: Set<String> = []
        return device.services.map(\.type).filter { seen.insert($0).inserted }
    }

    /// Rows aligned in columns two spaces apart; the last column is not padded.
    static func columns(_ rows: [[String]]) -> [String] {
        guard let count = rows.map(\.count).max(), count > 0 else { return [] }
        var widths = [Int](repeating: 0, count: count)
        for row in rows {
            for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.count) }
        }
        return rows.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
            }.joined(separator: "  ")
        }
    }

    static func escaped(_ text: String) -> String { TerminalText.escapingControlCharacters(text) }
}

extension String {
    /// The text, or `nil` when it is empty.
    fileprivate var nonEmpty: String? { isEmpty ? nil : self }
}
