// The evil-twin baseline on a manual clock: learnt from this host's connections and a person's trust, never from
// what is merely heard — a twin of the connected network is a warning (also one heard before the connection, and
// every time it returns), a network never connected to nor trusted raises none, and trust and untrust edit it.

import Discovery
import MonitoringLog
import PeerScanModel
import Testing

@testable import PeerScanCore

private let home = "02:00:00:00:01:00"
private let twin = "0a:00:00:00:09:00"
private let other = "0e:00:00:00:09:00"
private let vendors = [home: "Acme", "02:00:00:00:02:00": "Acme", twin: "Evil Corp"]

private func ap(
    _ bssid: String,
    _ ssid: String?,
    _ security: WiFiSecurity = .wpa2Personal,
    at seen: Duration = .zero
) -> AccessPoint {
    AccessPoint(
        bssid: bssid,
        ssid: ssid,
        security: security,
        frequency: 2437,
        signal: -60,
        lastSeen: seen,
        isConnected: false
    )
}

private func makeTable() -> WirelessTable {
    WirelessTable(expiry: .seconds(60), vendorOf: { vendors[$0] })
}

private func scan(_ table: inout WirelessTable, _ aps: [AccessPoint], now: Duration) -> WirelessTable.Changes {
    table.apply(.scanResults(interface: "wlan0", accessPoints: aps), now: now)
    return table.takeChanges(now: now)
}

private func connect(_ table: inout WirelessTable, to bssid: String?, now: Duration) -> WirelessTable.Changes {
    let connection = bssid.map { WirelessConnection(bssid: $0, ssid: nil, frequency: 2437) }
    table.apply(.interfaces([WirelessInterface(name: "wlan0", isUp: true, connection: connection)]), now: now)
    return table.takeChanges(now: now)
}

private func twins(_ changes: WirelessTable.Changes) -> [String] {
    changes.logs.filter { $0.message == .possibleEvilTwin }.compactMap { $0.metadata["reason"] }
}

@Suite struct WirelessBaselineTests {
    @Test func anOpenTwinOfTheConnectedNetworkIsAWarning() {
        var table = makeTable()
        _ = scan(&table, [ap(home, "HomeNet")], now: .zero)
        let connected = connect(&table, to: home, now: .seconds(1))
        let id = DeviceID.make(ssid: "HomeNet", security: .wpa2Personal)
        #expect(connected.records.known[id]??.isConnected == true, "the connection is recorded for the registry")
        #expect(table.known.networks(ssid: "HomeNet").map(\.bssids) == [[home]])
        let now = Duration.seconds(2)
        let open = scan(&table, [ap(home, "HomeNet", at: now), ap(twin, "HomeNet", .open, at: now)], now: now)
        #expect(twins(open) == ["weaker-security", "other-vendor"])
        #expect(open.logs.map(\.message) == [.newWiFiNetwork, .newAccessPoint, .possibleEvilTwin, .possibleEvilTwin])
    }

    @Test func aTwinHeardBeforeTheConnectionIsWarnedOfWhenTheHostConnects() {
        var table = makeTable()
        let first = scan(&table, [ap(twin, "HomeNet", .open), ap(home, "HomeNet")], now: .zero)
        #expect(twins(first).isEmpty, "nothing is known yet: heard first teaches nothing")
        let connected = connect(&table, to: home, now: .seconds(1))
        #expect(twins(connected) == ["weaker-security", "other-vendor"])
        #expect(connected.logs.first { $0.message == .possibleEvilTwin }?.metadata["bssid"] == twin)
    }

    @Test func aTwinStaysAWarningHoweverOftenItWasHeard() {
        var table = makeTable()
        _ = scan(&table, [ap(home, "HomeNet")], now: .zero)
        _ = connect(&table, to: home, now: .zero)
        var warnings = 0
        for round in 0..<5 {
            let now = Duration.seconds(100 * round + 10)  // each round after the last one's twin expired
            let changes = scan(&table, [ap(home, "HomeNet", at: now), ap(twin, "HomeNet", .open, at: now)], now: now)
            warnings += twins(changes).count
        }
        #expect(warnings == 10, "two reasons, every time it comes back")
        #expect(table.known.networks(ssid: "HomeNet").flatMap(\.bssids) == [home], "hearing it never vouches for it")
    }

    @Test func aNetworkNeverConnectedToNorTrustedRaisesNoWarning() {
        var table = makeTable()
        _ = scan(&table, [ap(home, "Cafe", .open)], now: .zero)
        _ = scan(&table, [ap(home, "Cafe", .open, at: .seconds(100))], now: .seconds(100))
        let later = Duration.seconds(101)
        let changes = scan(
            &table,
            [ap(twin, "Cafe", .open, at: later), ap(other, "Cafe", .wep, at: later)],
            now: later
        )
        #expect(twins(changes).isEmpty)
        #expect(!changes.logs.contains { $0.message == .newAccessPoint }, "an SSID only heard is not known")
        #expect(table.known.networks.isEmpty, "the baseline holds nothing heard")
    }

    @Test func aTrustedNetworkIsKnownWithItsAccessPointsHeardNow() throws {
        var table = makeTable()
        let heard = scan(&table, [ap(home, "HomeNet"), ap(twin, "HomeNet", .open)], now: .zero)
        #expect(twins(heard).isEmpty)
        let known = try table.apply(.trust(ssid: "HomeNet", security: .wpa2Personal))
        #expect(known.map(\.bssids) == [[home]] && known.allSatisfy { $0.isTrusted && !$0.isConnected })
        let changes = table.takeChanges(now: .seconds(1))
        #expect(twins(changes) == ["weaker-security", "other-vendor"], "the open twin held is checked at once")
        #expect(changes.records.known.count == 1)
        #expect(throws: WiFiTrustError(.notHeard, ssid: "Elsewhere")) {
            try table.apply(.trust(ssid: "Elsewhere", security: nil))
        }
        #expect(throws: WiFiTrustError(.notHeard, ssid: "HomeNet")) {
            try table.apply(.trust(ssid: "HomeNet", security: .wpa3Personal))
        }
    }

    @Test func untrustRemovesEveryNetworkOfTheSSID() throws {
        var table = makeTable()
        _ = scan(&table, [ap(home, "HomeNet")], now: .zero)
        _ = connect(&table, to: home, now: .zero)
        _ = try table.apply(.trust(ssid: "HomeNet", security: nil))
        #expect(try table.apply(.untrust(ssid: "HomeNet")).isEmpty)
        let id = DeviceID.make(ssid: "HomeNet", security: .wpa2Personal)
        let changes = connect(&table, to: nil, now: .seconds(1))
        #expect(changes.records.known.keys.contains(id) && changes.records.known[id]! == nil)
        #expect(table.known.networks.isEmpty)
        #expect(throws: WiFiTrustError(.notKnown, ssid: "HomeNet")) { try table.apply(.untrust(ssid: "HomeNet")) }
    }

    @Test func aScanOnlyTableLearnsFromTheScanResultsConnectedFlag() {
        var table = makeTable()
        var connected = ap(home, "HomeNet")
        connected.isConnected = true
        let changes = scan(&table, [connected], now: .zero)
        #expect(changes.records.known.count == 1)
        #expect(table.known.networks(ssid: "HomeNet").first?.isConnected == true)
    }
}
