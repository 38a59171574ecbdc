// Wi-Fi through the store: interface items after the host, networks before the devices in the contract's order, one
// changeset per change and none for an unchanged scan, expiry asked for as a check, and all gone with scanning off.

import Discovery
import Foundation
import PeerScanModel
import TestSupport
import Testing

@testable import PeerScanCore

private func accessPoint(
    _ bssid: String,
    _ ssid: String?,
    signal: Int = -60,
    at seen: Duration = .zero
)
    -> AccessPoint
{
    AccessPoint(
        bssid: bssid,
        ssid: ssid,
        security: .wpa2Personal,
        frequency: 2437,
        signal: signal,
        lastSeen: seen,
        isConnected: false
    )
}

private func scanResults(_ aps: [AccessPoint]) -> StoreInput {
    .discovery(.wireless(.scanResults(interface: "wlan0", accessPoints: aps)))
}

@Suite struct SnapshotStoreWiFiTests {
    @Test func networksComeBeforeTheDevicesAndInterfacesAfterTheHost() async throws {
        let clock = ManualClock()
        let store = SnapshotStore(isScanning: true, interfaces: [], clock: ScanClock(clock))
        await store.apply([.resolved(makeInstance("TV", host: "tv.local", addresses: ["10.0.0.7"]))])
        let connection = WirelessConnection(bssid: "02:00:00:00:02:00", ssid: "beta", frequency: 2437)
        let outcome = try await applyBatch(
            [
                .discovery(
                    .wireless(
                        .interfaces([
                            WirelessInterface(name: "wlan1", isUp: false, connection: nil),
                            WirelessInterface(name: "wlan0", isUp: true, connection: connection),
                        ])
                    )
                ),
                scanResults([
                    accessPoint("02:00:00:00:01:00", "Alpha"), accessPoint("02:00:00:00:02:00", "beta"),
                    accessPoint("02:00:00:00:03:00", nil), accessPoint("02:00:00:00:04:00", "alpha 2"),
                ]),
            ],
            to: store
        )
        #expect(outcome.updates.count == 1, "one batch, one changeset")
        let snapshot = await store.snapshot
        let config = snapshot.items(inSection: .config) ?? []
        #expect(config.map(\.kind) == ["scanning", "host", "wifiInterface", "wifiInterface"])
        #expect(config.compactMap(\.wifiInterface).map(\.name) == ["wlan0", "wlan1"])
        let networks = snapshot.items(inSection: .networks) ?? []
        let names: [String?] = networks.map { item in item.wifiNetwork.map(\.ssid) ?? item.device?.hostName }
        #expect(names == ["beta", "Alpha", "alpha 2", nil, "tv.local"])
        #expect(networks.first?.wifiNetwork?.isConnected == true)
        #expect(await store.deviceCount == 1, "networks are not devices")
        #expect(outcome.effects.checkAfter == .seconds(150), "the first expiry is checked for")
    }

    @Test func anUnchangedScanPublishesNothingAndExpiryRemovesTheNetwork() async throws {
        let clock = ManualClock()
        let store = SnapshotStore(
            isScanning: true,
            interfaces: [],
            wireless: WirelessTable(expiry: .seconds(30)),
            clock: ScanClock(clock)
        )
        await store.apply([scanResults([accessPoint("02:00:00:00:01:00", "home")])])
        let first = await store.sequence
        clock.advance(by: .seconds(10))
        let unchanged = try await applyBatch(
            [scanResults([accessPoint("02:00:00:00:01:00", "home", signal: -62, at: .seconds(10))])],
            to: store
        )
        #expect(unchanged.updates.isEmpty)
        #expect(await store.sequence == first)
        clock.advance(by: .seconds(30))
        let expired = try await applyBatch([.presenceCheck], to: store)
        let changes = try #require(expired.changes)
        #expect(changes.itemDeletes.map(\.id) == [DeviceID.make(ssid: "home", security: .wpa2Personal)])
        #expect(expired.effects.logs.map(\.message.text) == ["wifi network gone"])
    }

    @Test func scanningOffRemovesTheWiFiItems() async throws {
        let store = makeStore()
        await store.apply([
            .discovery(.wireless(.interfaces([WirelessInterface(name: "wlan0", isUp: true, connection: nil)]))),
            scanResults([accessPoint("02:00:00:00:01:00", "home")]),
        ])
        await store.apply([.setScanning(false)])
        let snapshot = await store.snapshot
        #expect(snapshot.items(inSection: .config)?.map(\.kind) == ["scanning", "host"])
        #expect(!snapshot.contains(section: .networks))
        await store.apply([scanResults([accessPoint("02:00:00:00:01:00", "home")])])
        #expect(await store.snapshot.items(inSection: .config)?.count == 2, "ignored while off")
    }

    @Test func connectingMovesTheNetworkFirstInOneChangesetThatReplays() async throws {
        let store = makeStore()
        await store.apply([
            scanResults([accessPoint("02:00:00:00:01:00", "alpha"), accessPoint("02:00:00:00:09:00", "zulu")])
        ])
        let before = await store.snapshot
        let connection = WirelessConnection(bssid: "02:00:00:00:09:00", ssid: "zulu", frequency: 2437)
        let outcome = try await applyBatch(
            [
                .discovery(
                    .wireless(.interfaces([WirelessInterface(name: "wlan0", isUp: true, connection: connection)]))
                )
            ],
            to: store
        )
        let changes = try #require(outcome.changes)
        let after = await store.snapshot
        #expect(try before.applying(changes) == after)
        #expect(after.items(inSection: .networks)?.compactMap(\.wifiNetwork?.ssid) == ["zulu", "alpha"])
        #expect(after.items(inSection: .networks)?.first?.wifiNetwork?.isConnected == true)
    }
}
