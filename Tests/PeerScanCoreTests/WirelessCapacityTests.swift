// The cap on the Wi-Fi networks listed, on a manual clock: the weakest newcomers stay out, the network absent longest
// goes first, a network heard is never displaced however strong the newcomer, the connected and known
// networks are listed past it, and the store reports it once in the log and in the host item's limits.

import Discovery
import Foundation
import MonitoringLog
import PeerScanModel
import TestSupport
import Testing

@testable import PeerScanCore

private func ap(_ index: Int, signal: Int, at seen: Duration = .zero, connected: Bool = false) -> AccessPoint {
    AccessPoint(
        bssid: String(format: "02:00:00:00:%02x:00", index),
        ssid: "net\(index)",
        security: .wpa2Personal,
        frequency: 2437,
        signal: signal,
        lastSeen: seen,
        isConnected: connected
    )
}

private func id(_ index: Int) -> DeviceID { DeviceID.make(ssid: "net\(index)", security: .wpa2Personal) }

/// The networks the table lists after a scan at `now`.
private func listed(_ table: inout WirelessTable, now: Duration) -> Set<DeviceID> {
    _ = table.takeChanges(now: now)
    return Set(table.members.keys)
}

private func scan(_ table: inout WirelessTable, _ points: [AccessPoint], now: Duration) {
    table.apply(.scanResults(interface: "wlan0", accessPoints: points), now: now)
}

@Suite struct WirelessCapacityTests {
    @Test func theStrongestNetworksAreListedUpToTheCap() {
        var table = WirelessTable(expiry: .seconds(150), capacity: NetworkCapacity(maximum: 3))
        scan(&table, (1...5).map { ap($0, signal: -90 + 5 * $0) }, now: .zero)
        #expect(table.networkCount == 3)
        #expect(listed(&table, now: .zero) == [id(3), id(4), id(5)])
    }

    @Test func theNetworkAbsentLongestGoesFirst() {
        var table = WirelessTable(expiry: .seconds(150), capacity: NetworkCapacity(maximum: 2))
        scan(&table, [ap(1, signal: -40), ap(2, signal: -80)], now: .zero)
        let later = Duration.seconds(40)
        scan(&table, [ap(2, signal: -80, at: later), ap(3, signal: -85, at: later)], now: later)
        #expect(listed(&table, now: later) == [id(2), id(3)], "the strong network not heard for 40 s went")
    }

    @Test func aNetworkHeardIsNeverDisplacedHoweverStrongTheNewcomer() {
        var table = WirelessTable(expiry: .seconds(150), capacity: NetworkCapacity(maximum: 2))
        scan(&table, [ap(1, signal: -85), ap(2, signal: -60)], now: .zero)
        let heard = Duration.seconds(29)
        scan(&table, [ap(1, signal: -85, at: heard), ap(3, signal: -20, at: heard)], now: heard)
        #expect(listed(&table, now: heard) == [id(1), id(2)], "-20 dBm is no reason: both were heard within 30 s")
        let absent = Duration.seconds(31)
        scan(&table, [ap(1, signal: -85, at: absent), ap(3, signal: -20, at: absent)], now: absent)
        #expect(listed(&table, now: absent) == [id(1), id(3)], "network 2, not heard for 31 s, made room")
    }

    @Test func theConnectedAndKnownNetworksAreListedPastTheCap() throws {
        var table = WirelessTable(expiry: .seconds(150), capacity: NetworkCapacity(maximum: 1))
        scan(&table, [ap(1, signal: -40)], now: .zero)
        _ = try table.apply(.trust(ssid: "net1", security: nil))
        scan(&table, [ap(1, signal: -40), ap(2, signal: -90, connected: true)], now: .zero)
        #expect(listed(&table, now: .zero) == [id(1), id(2)])
        scan(&table, [ap(1, signal: -40), ap(2, signal: -90, connected: true), ap(3, signal: -20)], now: .zero)
        #expect(listed(&table, now: .zero) == [id(1), id(2)], "nothing may be evicted for it")
    }

    @Test func everyAccessPointOfTheConnectedNetworkIsListedPastTheCap() {
        var table = WirelessTable(expiry: .seconds(150), capacity: NetworkCapacity(maximum: 1))
        scan(&table, [ap(1, signal: -40)], now: .zero)
        var other = ap(2, signal: -60)  // a second access point of network 2, before the connected one in BSSID order
        other.bssid = "02:00:00:00:01:ff"
        scan(&table, [ap(1, signal: -40), other, ap(2, signal: -90, connected: true)], now: .zero)
        #expect(listed(&table, now: .zero) == [id(1), id(2)])
        #expect(table.members[id(2)]?.count == 2, "both access points of the network this host is connected to")
    }

    @Test func aBeaconFloodHoldsNoMoreThanTheCap() {
        var table = WirelessTable(expiry: .seconds(150), capacity: NetworkCapacity(maximum: 256))
        for wave in 0..<20 {
            let now = Duration.seconds(wave)
            let points = (0..<1000).map { index in
                AccessPoint(
                    bssid: String(format: "02:%02x:%02x:%02x:00:00", wave, index / 256, index % 256),
                    ssid: "flood-\(wave)-\(index)",
                    security: .open,
                    frequency: 2412,
                    signal: -50 - index % 40,
                    lastSeen: now,
                    isConnected: false
                )
            }
            scan(&table, points, now: now)
            _ = table.takeChanges(now: now)
            #expect(table.networkCount == 256)
            #expect(table.heard.count == 256, "what the cap left out is not held")
        }
    }

    @Test func theStoreReportsTheCapOnceAndInTheHostsLimits() async throws {
        let clock = ManualClock()
        let store = SnapshotStore(
            isScanning: true,
            interfaces: [],
            wireless: WirelessTable(expiry: .seconds(150), capacity: NetworkCapacity(maximum: 2)),
            clock: ScanClock(clock)
        )
        let scan = StoreInput.discovery(
            .wireless(.scanResults(interface: "wlan0", accessPoints: (1...3).map { ap($0, signal: -50 - $0) }))
        )
        let first = await store.apply([scan])
        let limit = SystemLimit(name: "wifi-networks", value: 2, setting: "--wifi-networks-max=2")
        #expect(await store.hostStatus.limits == [limit])
        let reached = first.logs.filter { $0.message == .systemLimitReached }
        #expect(reached.map { $0.metadata["limit"] } == ["wifi-networks"])
        #expect(reached.first?.metadata["setting"] == "--wifi-networks-max=2")
        let again = await store.apply([scan])
        #expect(!again.logs.contains { $0.message == .systemLimitReached }, "logged once")
        let networks = await store.snapshot.items(inSection: .networks)?.compactMap(\.wifiNetwork) ?? []
        #expect(networks.map(\.ssid) == ["net1", "net2"])
        clock.advance(by: .seconds(150))
        await store.apply([.presenceCheck])
        #expect(await store.hostStatus.limits.isEmpty, "gone with the networks")
    }
}
