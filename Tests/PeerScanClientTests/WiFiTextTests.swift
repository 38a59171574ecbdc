// Wi-Fi in peerscanctl: `list` shows the networks above the devices as a settings screen does and the wireless
// interfaces in the header; `watch` prints networks coming, going and changing.

import Foundation
import PeerScanCore
import PeerScanModel
import Testing

@testable import PeerScanClient

private func network(
    _ ssid: String?,
    _ security: WiFiSecurity = .wpa2Personal,
    bars: Int = 3,
    connected: Bool = false,
    accessPoints: [WiFiAccessPointInfo] = [WiFiAccessPointInfo(bssid: "02:00:00:00:01:00", frequency: 2437)]
) -> WiFiNetwork {
    WiFiNetwork(
        id: ssid.map { DeviceID.make(ssid: $0, security: security) }
            ?? DeviceID.make(hiddenNetworkBSSID: accessPoints[0].bssid),
        ssid: ssid,
        security: security,
        accessPoints: accessPoints,
        bars: bars,
        isConnected: connected
    )
}

private let wlan0 = WirelessInterfaceStatus(
    id: DeviceID.make(wirelessInterface: "wlan0"),
    name: "wlan0",
    isUp: true,
    connection: WiFiConnectionInfo(
        network: DeviceID.make(ssid: "home", security: .wpa2Personal),
        ssid: "home",
        bssid: "02:00:00:00:01:00",
        band: .band2_4GHz
    )
)

private func snapshot(
    networks: [WiFiNetwork],
    interfaces: [WirelessInterfaceStatus] = [wlan0],
    devices: [Device] = []
)
    -> ScanSnapshot
{
    try! ScanSnapshot([
        (.config, [.scanning(enabled: true), .host(runningHost)] + interfaces.map(ScanItem.wifiInterface)),
        (.networks, networks.map(ScanItem.wifiNetwork) + devices.map(ScanItem.device)),
    ])
}

@Suite("Wi-Fi in list and watch")
struct WiFiTextTests {
    @Test("bars are four characters, blanks for the missing ones")
    func bars() {
        #expect(WiFiText.bars(4) == "▂▄▆█")
        #expect(WiFiText.bars(2) == "▂▄  ")
        #expect(WiFiText.bars(0) == "    ")
    }

    @Test("list: the interfaces in the header, the networks above the devices")
    func list() {
        let home = network(
            "home",
            bars: 4,
            connected: true,
            accessPoints: [
                WiFiAccessPointInfo(bssid: "02:00:00:00:01:00", frequency: 2437),
                WiFiAccessPointInfo(bssid: "02:00:00:00:02:00", frequency: 5180),
            ]
        )
        let cafe = network("Cafe", .open, bars: 1)
        let hidden = network(
            nil,
            bars: 2,
            accessPoints: [WiFiAccessPointInfo(bssid: "02:00:00:00:03:00", frequency: 5180)]
        )
        let lines = SnapshotTable.render(snapshot(networks: [home, cafe, hidden], devices: [makeTV()]))
        #expect(
            Array(lines.prefix(11)) == [
                "scanning    on",
                "host        scanner.local",
                "avahi       running",
                "interfaces  lan0",
                "wifi        wlan0 up, connected to home (02:00:00:00:01:00, 2.4GHz)",
                "",
                "  WI-FI     SIGNAL  BAND         SECURITY",
                "✓ home      ▂▄▆█    2.4GHz,5GHz  🔒 wpa2-personal",
                "  Cafe      ▂       2.4GHz       open",
                "  (hidden)  ▂▄      5GHz         🔒 wpa2-personal",
                "",
            ]
        )
        #expect(lines.contains { $0.hasPrefix("Living Room TV") })
        #expect(lines.firstIndex { $0.hasPrefix("NAME") }! > lines.firstIndex { $0.contains("(hidden)") }!)
    }

    @Test("without Wi-Fi the list is as before")
    func listWithoutWiFi() {
        let plain = SnapshotTable.render(makeSnapshot(devices: [makeTV()]))
        #expect(!plain.contains { $0.contains("WI-FI") || $0.hasPrefix("wifi") })
    }

    @Test("watch: a network comes, changes bars and connection, and goes")
    func watch() {
        let before = snapshot(networks: [], interfaces: [])
        let home = network("home", bars: 3)
        let appeared = snapshot(networks: [home], interfaces: [])
        #expect(describe(from: before, to: appeared) == ["+ Wi-Fi home ▂▄▆  2.4GHz 🔒 wpa2-personal"])
        let weaker = network("home", bars: 2)
        #expect(
            describe(from: appeared, to: snapshot(networks: [weaker], interfaces: [])) == [
                "~ Wi-Fi home: bars 3→2 ▂▄  "
            ]
        )
        let joined = network("home", bars: 3, connected: true)
        #expect(
            describe(from: appeared, to: snapshot(networks: [joined], interfaces: [wlan0])) == [
                "wifi wlan0 up, connected to home (02:00:00:00:01:00, 2.4GHz)",
                "~ Wi-Fi home: connected",
            ]
        )
        #expect(describe(from: appeared, to: before) == ["- Wi-Fi home ▂▄▆  2.4GHz 🔒 wpa2-personal"])
    }
}
