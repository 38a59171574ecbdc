import PeerScanModel

/// The Wi-Fi items as people read them, as a Wi-Fi settings screen shows them: `✓ home  ▂▄▆█  2.4GHz,5GHz  🔒
/// wpa2-personal` — a check mark for the network this host is on, the SSID (or `(hidden)`), bars with blanks for the
/// missing ones, the bands, a lock for a secured network and the security.
public enum WiFiText {
    /// `▂▄▆█` for 4 bars, `▂▄  ` for 2: always four characters wide.
    public static func bars(_ count: Int) -> String {
        let glyphs: [Character] = ["▂", "▄", "▆", "█"]
        return String(glyphs.enumerated().map { $0.offset < count ? $0.element : " " })
    }

    /// The network's name: its SSID, escaped, or `(hidden)`.
    public static func name(of network: WiFiNetwork) -> String {
        network.ssid.map(TerminalText.escapingControlCharacters) ?? "(hidden)"
    }

    /// `🔒 wpa2-personal` for a secured network, `open` or `owe` for the others.
    public static func security(of network: WiFiNetwork) -> String {
        network.security.isSecured ? "🔒 \(network.security.rawValue)" : network.security.rawValue
    }

    /// `2.4GHz,5GHz`, or `-` when no band is known.
    public static func bands(of network: WiFiNetwork) -> String {
        network.bands.isEmpty ? "-" : network.bands.map(\.rawValue).joined(separator: ",")
    }

    /// The table of the networks, one row each, in the snapshot's order (the lock column last: it is two columns
    /// wide on a terminal).
    static func table(_ networks: [WiFiNetwork]) -> [String] {
        let rows =
            [["  WI-FI", "SIGNAL", "BAND", "SECURITY"]]
            + networks.map { network in
                [
                    (network.isConnected ? "✓ " : "  ") + name(of: network), bars(network.bars), bands(of: network),
                    security(of: network),
                ]
            }
        return SnapshotTable.columns(rows)
    }

    /// `wlan0 up, connected to home (02:00:00:00:01:00, 2.4GHz)`, `wlan1 down`.
    public static func summary(of interface: WirelessInterfaceStatus) -> String {
        var text = "\(interface.name) \(interface.isUp ? "up" : "down")"
        if let connection = interface.connection {
            let ssid = connection.ssid.map { TerminalText.escapingControlCharacters($0) } ?? "(hidden)"
            text += ", connected to \(ssid) (\(connection.bssid)\(connection.band.map { ", \($0.rawValue)" } ?? ""))"
        }
        return TerminalText.escapingControlCharacters(text)
    }

    /// `Wi-Fi home ▂▄▆█ 2.4GHz 🔒 wpa2-personal connected`: a network as `watch` prints it when it comes or goes.
    static func line(of network: WiFiNetwork) -> String {
        var text = "Wi-Fi \(name(of: network)) \(bars(network.bars)) \(bands(of: network)) \(security(of: network))"
        if network.isConnected { text += " connected" }
        return text
    }

    /// `Wi-Fi home: bars 3→2, connected, + access point 02:…, access point 02:… gone`: what changed.
    static func change(from old: WiFiNetwork, to new: WiFiNetwork) -> String {
        var parts: [String] = []
        if old.bars != new.bars { parts.append("bars \(old.bars)→\(new.bars) \(bars(new.bars))") }
        if old.isConnected != new.isConnected { parts.append(new.isConnected ? "connected" : "disconnected") }
        let oldBSSIDs = Set(old.accessPoints.map(\.bssid))
        let newBSSIDs = Set(new.accessPoints.map(\.bssid))
        for accessPoint in new.accessPoints where !oldBSSIDs.contains(accessPoint.bssid) {
            parts.append("+ access point \(accessPoint.bssid)\(accessPoint.band.map { " \($0.rawValue)" } ?? "")")
        }
        for accessPoint in old.accessPoints where !newBSSIDs.contains(accessPoint.bssid) {
            parts.append("access point \(accessPoint.bssid) gone")
        }
        for accessPoint in new.accessPoints {
            if let was = old.accessPoints.first(where: { $0.bssid == accessPoint.bssid }),
                was.frequency != accessPoint.frequency
            {
                parts.append(
                    "access point \(accessPoint.bssid) channel \(was.channel ?? 0)→\(accessPoint.channel ?? 0)"
                )
            }
        }
        return "Wi-Fi \(name(of: old)): " + (parts.isEmpty ? "changed" : parts.joined(separator: ", "))
    }

    /// `home  wpa2-personal  connected,trusted  02:00:00:00:01:00,02:00:00:00:02:00`: the evil-twin baseline, one
    /// row per known network (SSIDs escaped), with a header.
    public static func knownTable(_ networks: [PeerScanWire.KnownWiFiNetwork]) -> [String] {
        let rows =
            [["SSID", "SECURITY", "KNOWN", "ACCESS POINTS"]]
            + networks.map { network in
                let known = [network.connected ? "connected" : nil, network.trusted ? "trusted" : nil].compactMap { $0 }
                return [
                    TerminalText.escapingControlCharacters(network.ssid),
                    TerminalText.escapingControlCharacters(network.security),
                    known.joined(separator: ","),
                    network.accessPoints.isEmpty ? "-" : network.accessPoints.joined(separator: ","),
                ]
            }
        return SnapshotTable.columns(rows)
    }
}
