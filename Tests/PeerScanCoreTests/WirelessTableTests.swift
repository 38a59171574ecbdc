// The wireless table on a manual clock: networks grouped from access points, hidden networks, expiry and return with
// the same id, bars with hysteresis, unchanged scans, connected flags, and the log lines.

import Discovery
import MonitoringLog
import PeerScanModel
import Testing

@testable import PeerScanCore

private func ap(
    _ bssid: String,
    _ ssid: String?,
    _ security: WiFiSecurity = .wpa2Personal,
    frequency: Int = 2437,
    signal: Int? = -60,
    at seen: Duration = .zero,
    connected: Bool = false
) -> AccessPoint {
    AccessPoint(
        bssid: bssid,
        ssid: ssid,
        security: security,
        frequency: frequency,
        signal: signal,
        lastSeen: seen,
        isConnected: connected
    )
}

private func scan(_ table: inout WirelessTable, _ aps: [AccessPoint], now: Duration) -> WirelessTable.Changes {
    table.apply(.scanResults(interface: "wlan0", accessPoints: aps), now: now)
    return table.takeChanges(now: now)
}

@Suite struct WirelessTableTests {
    @Test func accessPointsOfOneSSIDAndSecurityAreOneNetwork() {
        var table = WirelessTable(expiry: .seconds(150))
        let changes = scan(
            &table,
            [
                ap("02:00:00:00:02:00", "home", frequency: 5180, signal: -50),
                ap("02:00:00:00:01:00", "home", signal: -70),
                ap("02:00:00:00:03:00", "home", .open),
                ap("02:00:00:00:04:00", "Cafe", .open),
            ],
            now: .zero
        )
        let networks = changes.networks.compactMap(\.network)
        #expect(networks.count == 3)
        let home = networks.first { $0.id == DeviceID.make(ssid: "home", security: .wpa2Personal) }
        #expect(home?.accessPoints.map(\.bssid) == ["02:00:00:00:01:00", "02:00:00:00:02:00"])
        #expect(home?.bars == 4, "from the strongest access point")
        #expect(home?.bands == [.band2_4GHz, .band5GHz])
        #expect(changes.logs.filter { $0.message == .newWiFiNetwork }.count == 3)
    }

    @Test func aHiddenNetworkIsOneItemPerBSSID() {
        var table = WirelessTable(expiry: .seconds(150))
        let changes = scan(&table, [ap("02:00:00:00:05:00", nil), ap("02:00:00:00:06:00", nil)], now: .zero)
        #expect(
            Set(changes.networks.map(\.id)) == [
                DeviceID.make(hiddenNetworkBSSID: "02:00:00:00:05:00"),
                DeviceID.make(hiddenNetworkBSSID: "02:00:00:00:06:00"),
            ]
        )
        #expect(changes.networks.allSatisfy { $0.network?.ssid == nil })
    }

    @Test func anUnchangedScanChangesNothing() {
        var table = WirelessTable(expiry: .seconds(150))
        _ = scan(&table, [ap("02:00:00:00:01:00", "home")], now: .zero)
        let again = scan(&table, [ap("02:00:00:00:01:00", "home", signal: -61, at: .seconds(10))], now: .seconds(10))
        #expect(again.networks.isEmpty)
        #expect(again.logs.isEmpty)
    }

    @Test func aNetworkExpiresAndReturnsWithItsID() {
        var table = WirelessTable(expiry: .seconds(30))
        let id = DeviceID.make(ssid: "home", security: .wpa2Personal)
        _ = scan(&table, [ap("02:00:00:00:01:00", "home")], now: .zero)
        #expect(table.nextExpiry == .seconds(30))
        #expect(table.takeChanges(now: .seconds(29)).networks.isEmpty)
        let gone = table.takeChanges(now: .seconds(30))
        #expect(gone.networks.map(\.id) == [id] && gone.networks.first?.network == nil)
        #expect(gone.logs.map(\.message) == [.wifiNetworkGone])
        #expect(table.nextExpiry == nil)
        let back = scan(&table, [ap("02:00:00:00:01:00", "home", at: .seconds(40))], now: .seconds(40))
        #expect(back.networks.map(\.id) == [id])
        #expect(back.logs.map(\.message) == [.newWiFiNetwork], "it entered the list again (the table keeps no past)")
    }

    @Test func barsMoveOnlyWhenTheSignalCrossesAThresholdBy3dB() {
        #expect(WirelessTable.bars(signal: -60, previous: nil) == 3)
        for signal in -68 ... -53 { #expect(WirelessTable.bars(signal: signal, previous: 3) == 3, "\(signal) dBm") }
        #expect(WirelessTable.bars(signal: -52, previous: 3) == 4)
        #expect(WirelessTable.bars(signal: -69, previous: 3) == 2)
        #expect(WirelessTable.bars(signal: -95, previous: 4) == 0)
        var table = WirelessTable(expiry: .seconds(150))
        _ = scan(&table, [ap("02:00:00:00:01:00", "home", signal: -66)], now: .zero)
        var updates = 0
        for (step, signal) in [-64, -68, -65, -67, -66].enumerated() {
            let now = Duration.seconds(step + 1)
            updates += scan(&table, [ap("02:00:00:00:01:00", "home", signal: signal, at: now)], now: now).networks.count
        }
        #expect(updates == 0, "±2 dB around the threshold")
        let crossed = scan(&table, [ap("02:00:00:00:01:00", "home", signal: -69, at: .seconds(9))], now: .seconds(9))
        #expect(crossed.networks.map { $0.network?.bars } == [2])
    }

    @Test func theConnectedNetworkAndInterface() {
        var table = WirelessTable(expiry: .seconds(150))
        _ = scan(&table, [ap("02:00:00:00:01:00", "home"), ap("02:00:00:00:04:00", "Cafe", .open)], now: .zero)
        table.apply(
            .interfaces([
                WirelessInterface(
                    name: "wlan0",
                    isUp: true,
                    connection: WirelessConnection(bssid: "02:00:00:00:01:00", ssid: nil, frequency: 2437)
                )
            ]),
            now: .seconds(1)
        )
        let changes = table.takeChanges(now: .seconds(1))
        #expect(changes.networks.map { $0.network?.ssid } == ["home"])
        #expect(changes.networks.first?.network?.isConnected == true)
        let interface = table.interfaceStatuses.first
        #expect(interface?.id == DeviceID.make(wirelessInterface: "wlan0"))
        #expect(interface?.connection?.network == DeviceID.make(ssid: "home", security: .wpa2Personal))
        #expect(interface?.connection?.ssid == "home")
        #expect(interface?.connection?.band == .band2_4GHz)
        table.apply(.interfaces([WirelessInterface(name: "wlan0", isUp: true, connection: nil)]), now: .seconds(2))
        let left = table.takeChanges(now: .seconds(2))
        #expect(left.networks.map { $0.network?.isConnected } == [false], "disconnected: at once, not at the next scan")
    }

    @Test func aScanResultsConnectedFlagCountsUntilAnInterfaceIsReported() {
        var table = WirelessTable(expiry: .seconds(150))
        let changes = scan(&table, [ap("02:00:00:00:01:00", "home", connected: true)], now: .zero)
        #expect(changes.networks.first?.network?.isConnected == true)
    }

    @Test func onceAnInterfaceIsReportedTheScanResultsFlagNoLongerCounts() {
        var table = WirelessTable(expiry: .seconds(150))
        _ = scan(
            &table,
            [ap("02:00:00:00:01:00", "home", connected: true), ap("02:00:00:00:04:00", "Cafe")],
            now: .zero
        )
        table.apply(.interfaces([WirelessInterface(name: "wlan0", isUp: true, connection: nil)]), now: .seconds(1))
        let changes = table.takeChanges(now: .seconds(1))
        #expect(changes.networks.map { $0.network?.isConnected } == [false], "only the network whose flag counted")
        #expect(table.takeChanges(now: .seconds(2)).networks.isEmpty, "nothing changed since")
    }

    @Test func aKnownSSIDWithWeakerSecurityIsAPossibleEvilTwin() {
        let known = KnownNetworks([
            KnownWiFiNetwork(
                id: DeviceID.make(ssid: "home", security: .wpa2Personal),
                ssid: "home",
                security: .wpa2Personal,
                bssids: ["02:00:00:00:01:00"],
                isConnected: true,
                isTrusted: false
            )
        ])
        var table = WirelessTable(expiry: .seconds(150), known: known)
        let changes = scan(
            &table,
            [ap("02:00:00:00:01:00", "home"), ap("06:00:00:00:09:00", "home", .open)],
            now: .zero
        )
        let twin = changes.logs.first { $0.message == .possibleEvilTwin }
        #expect(twin?.metadata["reason"] == "weaker-security")
        #expect(twin?.metadata["security.known"] == "wpa2-personal")
        #expect(twin?.metadata["bssid"] == "06:00:00:00:09:00")
        #expect(
            changes.logs.map(\.message) == [.newWiFiNetwork, .newWiFiNetwork, .newAccessPoint, .possibleEvilTwin]
        )
        #expect(changes.records.sightings.count == 2)
    }
}
