import Discovery
import Foundation
import GRDB
import Logging
import PeerScanCore
import PeerScanModel
import Synchronization
import TestSupport
import Testing

@testable import DeviceRegistry

private let t0 = Date(timeIntervalSince1970: 1_790_000_000)
private let day: TimeInterval = 86400

private func sighting(_ ssid: String?, _ security: WiFiSecurity, _ bssid: String) -> WirelessRecords.Sighting {
    WirelessRecords.Sighting(
        network: DeviceID.make(networkOf: (ssid: ssid, security: security, bssid: bssid)),
        ssid: ssid,
        security: security,
        bssid: bssid
    )
}

private func connected(_ ssid: String, _ bssids: Set<String>) -> KnownWiFiNetwork {
    KnownWiFiNetwork(
        id: DeviceID.make(ssid: ssid, security: .wpa2Personal),
        ssid: ssid,
        security: .wpa2Personal,
        bssids: bssids,
        isConnected: true,
        isTrusted: false
    )
}

/// A store's reply, kept for the test.
private final class Reply<Value: Sendable>: Sendable {
    private let storage = Mutex<Value?>(nil)
    func set(_ value: Value) { storage.withLock { $0 = value } }
    var value: Value? { storage.withLock { $0 } }
}

/// Records each sighting at its own time, then writes them all.
private func record(_ heard: [(WirelessRecords.Sighting, Date)], in registry: DeviceRegistry) async -> Bool {
    for (sighting, date) in heard { registry.record(WirelessRecords(sightings: [sighting]), at: date) }
    return await registry.flush(now: heard.map(\.1).max() ?? t0)
}

/// The rows of a table, as `ssid` (networks) or `bssid` (access points), sorted.
private func column(_ path: String, _ sql: String) async throws -> [String] {
    try await DatabaseQueue(path: path).read { try String.fetchAll($0, sql: sql) }.sorted()
}

/// The registry remembers Wi-Fi networks (migration `wifi`) and the evil-twin baseline (migration `wifi-baseline`):
/// what is heard is forgotten after `--forget-after`, the baseline stays and is all that is read back.
@Suite struct WiFiNetworkRegistryTests {
    @Test func networksHeardAreStoredButTeachTheBaselineNothing() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/registry.sqlite"
            let registry = DeviceRegistry(path: path, forgetAfter: .seconds(86400), now: t0, logger: .silent)
            #expect(registry.knownNetworks == KnownNetworks())
            let home = sighting("home", .wpa2Personal, "02:00:00:00:01:00")
            registry.record(
                WirelessRecords(sightings: [home, sighting("home", .wpa2Personal, "02:00:00:00:02:00")]),
                at: t0
            )
            registry.record(WirelessRecords(sightings: [sighting(nil, .open, "02:00:00:00:03:00")]), at: t0 + 1)
            registry.record(WirelessRecords(sightings: [home]), at: t0 + 30)
            #expect(await registry.flush(now: t0 + 30))

            let reopened = DeviceRegistry(path: path, forgetAfter: .seconds(86400), now: t0 + 60, logger: .silent)
            #expect(reopened.knownNetworks == KnownNetworks(), "heard, however often, is not known")
            let bssids = try await column(path, "SELECT bssid FROM wifi_access_point")
            #expect(bssids.count == 3)
            let times = try await DatabaseQueue(path: path).read {
                try Row.fetchOne(
                    $0,
                    sql: "SELECT first_seen, last_seen FROM wifi_access_point WHERE bssid = ?",
                    arguments: ["02:00:00:00:01:00"]
                )
            }
            #expect(times?["first_seen"] == t0.timeIntervalSince1970)
            #expect(times?["last_seen"] == (t0 + 30).timeIntervalSince1970)
        }
    }

    @Test func theBaselineSurvivesAReopen() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/registry.sqlite"
            let registry = DeviceRegistry(path: path, forgetAfter: .seconds(86400), now: t0, logger: .silent)
            let home = connected("home", ["02:00:00:00:01:00"])
            var trusted = connected("office", ["02:00:00:00:05:00", "02:00:00:00:06:00"])
            trusted.isConnected = false
            trusted.isTrusted = true
            registry.record(
                WirelessRecords(
                    sightings: [sighting("home", .wpa2Personal, "02:00:00:00:02:00")],
                    known: [home.id: home, trusted.id: trusted]
                ),
                at: t0
            )
            #expect(await registry.flush(now: t0))
            let reopened = DeviceRegistry(path: path, forgetAfter: .seconds(86400), now: t0 + 60, logger: .silent)
            #expect(reopened.knownNetworks == KnownNetworks([home, trusted]), "the access point only heard is not")
        }
    }

    @Test func networksNotHeardForForgetAfterAreForgottenButTheBaselines() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/registry.sqlite"
            let registry = DeviceRegistry(path: path, forgetAfter: .seconds(86400), now: t0, logger: .silent)
            let home = connected("home", ["02:00:00:00:01:00"])
            registry.record(
                WirelessRecords(
                    sightings: [
                        sighting("home", .wpa2Personal, "02:00:00:00:01:00"),
                        sighting("home", .wpa2Personal, "02:00:00:00:02:00"),
                        sighting("cafe", .open, "02:00:00:00:03:00"),
                    ],
                    known: [home.id: home]
                ),
                at: t0
            )
            registry.record(WirelessRecords(sightings: [sighting("park", .open, "02:00:00:00:04:00")]), at: t0 + day)
            #expect(await registry.flush(now: t0 + day))
            let forgotten = await registry.forgetNetworks(
                forgetAfter: .seconds(86400),
                limit: NetworkRowLimit(),
                now: t0 + day + 1
            )
            #expect(forgotten == (1, 1), "cafe, and home's access point only heard")
            let ssids = try await column(path, "SELECT ssid FROM wifi_network")
            let bssids = try await column(path, "SELECT bssid FROM wifi_access_point")
            #expect(ssids == ["home", "park"])
            #expect(bssids == ["02:00:00:00:01:00", "02:00:00:00:04:00"])

            registry.record(WirelessRecords(known: [home.id: KnownWiFiNetwork?.none]), at: t0 + 2 * day)  // untrusted
            #expect(await registry.flush(now: t0 + 2 * day))
            _ = await registry.forgetNetworks(forgetAfter: .seconds(86400), limit: NetworkRowLimit(), now: t0 + 3 * day)
            let left = try await column(path, "SELECT ssid FROM wifi_network")
            let leftPoints = try await column(path, "SELECT bssid FROM wifi_access_point")
            #expect(left.isEmpty)
            #expect(leftPoints.isEmpty, "with their network")
        }
    }

    @Test func withForgetAfterZeroOnlyTheBaselineIsWritten() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/registry.sqlite"
            let registry = DeviceRegistry(path: path, forgetAfter: .zero, now: t0, logger: .silent)
            let home = connected("home", ["02:00:00:00:01:00"])
            registry.record(
                WirelessRecords(sightings: [sighting("cafe", .open, "02:00:00:00:03:00")], known: [home.id: home]),
                at: t0
            )
            #expect(await registry.flush(now: t0))
            let ssids = try await column(path, "SELECT ssid FROM wifi_network")
            let bssids = try await column(path, "SELECT bssid FROM wifi_access_point")
            #expect(ssids == ["home"] && bssids == ["02:00:00:00:01:00"])
        }
    }

    @Test func aPersonsTrustGoesFromTheStoreToTheRegistry() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/registry.sqlite"
            let registry = DeviceRegistry(path: path, forgetAfter: .seconds(86400), now: t0, logger: .silent)
            let store = SnapshotStore(
                isScanning: true,
                interfaces: [],
                recorders: StoreRecorders(networks: { registry.record($0) })
            )
            let point = AccessPoint(
                bssid: "02:00:00:00:01:00",
                ssid: "home",
                security: .wpa2Personal,
                frequency: 2437,
                signal: -50,
                lastSeen: store.scanClock.now(),
                isConnected: false
            )
            await store.apply([.discovery(.wireless(.scanResults(interface: "wlan0", accessPoints: [point])))])
            let reply = Reply<Result<[KnownWiFiNetwork], WiFiTrustError>>()
            await store.apply([.editWiFiTrust(.trust(ssid: "home", security: nil), reply: { reply.set($0) })])
            let trusted = try reply.value?.get()
            #expect(trusted?.map(\.ssid) == ["home"])
            #expect(await store.knownWiFiNetworks.map(\.isTrusted) == [true])
            #expect(await registry.flush())
            let reopened = DeviceRegistry(path: path, forgetAfter: .seconds(86400), logger: .silent)
            let known = reopened.knownNetworks.all
            #expect(known.map(\.ssid) == ["home"] && known.first?.bssids == ["02:00:00:00:01:00"])
            #expect(known.first?.isTrusted == true && known.first?.isConnected == false)
        }
    }

    @Test func networksBeyondTheLimitAreTrimmedOldestHeardFirstWithTheirAccessPoints() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/registry.sqlite"
            let registry = DeviceRegistry(path: path, forgetAfter: .seconds(86400), now: t0, logger: .silent)
            let heard = [3, 0, 4, 1, 2].map { n in  // heard at t0 + n, out of order
                (sighting("flood\(n)", .open, "02:00:00:00:0\(n):00"), t0 + TimeInterval(n))
            }
            #expect(await record(heard, in: registry))
            let limit = NetworkRowLimit(networks: 3, accessPoints: 100)
            let forgotten = await registry.forgetNetworks(forgetAfter: .seconds(86400), limit: limit, now: t0 + 10)
            #expect(forgotten == (2, 0), "the access points of the networks trimmed go with them, uncounted")
            #expect(try await column(path, "SELECT ssid FROM wifi_network") == ["flood2", "flood3", "flood4"])
            let bssids = try await column(path, "SELECT bssid FROM wifi_access_point")
            #expect(bssids == ["02:00:00:00:02:00", "02:00:00:00:03:00", "02:00:00:00:04:00"], "no orphan")
            #expect(try await registry.networkRowCounts() == (3, 3))
            let again = await registry.forgetNetworks(forgetAfter: .seconds(86400), limit: limit, now: t0 + 70)
            #expect(again == (0, 0), "within the limit, nothing more goes")
        }
    }

    @Test func theBaselineIsNeverTrimmedAndDoesNotCount() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/registry.sqlite"
            // The baseline's rows are written at the wall clock's now: a year later, they are the oldest heard.
            let later = Date() + 365 * day
            let registry = DeviceRegistry(path: path, forgetAfter: .seconds(86400), now: later, logger: .silent)
            let home = connected("home", ["02:00:00:00:01:00"])
            var office = connected("office", ["02:00:00:00:02:00"])
            office.isConnected = false
            office.isTrusted = true
            registry.record(WirelessRecords(known: [home.id: home, office.id: office]), at: later)
            #expect(await registry.flush(now: later))
            let heard = (1...4).map { n in
                (sighting("street\(n)", .open, "02:00:00:01:0\(n):00"), later + TimeInterval(n))
            }
            #expect(await record(heard, in: registry))
            let limit = NetworkRowLimit(networks: 2, accessPoints: 2)
            let forgotten = await registry.forgetNetworks(forgetAfter: .seconds(86400), limit: limit, now: later + 10)
            #expect(forgotten == (2, 0))
            let ssids = try await column(path, "SELECT ssid FROM wifi_network")
            #expect(ssids == ["home", "office", "street3", "street4"])
            let bssids = try await column(path, "SELECT bssid FROM wifi_access_point")
            #expect(bssids == ["02:00:00:00:01:00", "02:00:00:00:02:00", "02:00:00:01:03:00", "02:00:00:01:04:00"])
            let reopened = DeviceRegistry(path: path, forgetAfter: .seconds(86400), now: later + 60, logger: .silent)
            #expect(reopened.knownNetworks == KnownNetworks([home, office]))
        }
    }

    @Test func accessPointsBeyondTheLimitAreTrimmedOldestHeardFirst() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/registry.sqlite"
            let registry = DeviceRegistry(path: path, forgetAfter: .seconds(86400), now: t0, logger: .silent)
            let home = connected("home", ["02:00:00:00:01:00"])
            registry.record(WirelessRecords(known: [home.id: home]), at: t0)
            #expect(await registry.flush(now: t0))
            let rotating = (1...6).map { n in  // one SSID, its BSSID rotating: one network, six access points
                (sighting("rotating", .wpa2Personal, "02:00:00:02:0\(n):00"), t0 + TimeInterval(n))
            }
            #expect(await record(rotating + [(sighting("home", .wpa2Personal, "02:00:00:03:00:00"), t0)], in: registry))
            let limit = NetworkRowLimit(networks: 10, accessPoints: 3)
            let forgotten = await registry.forgetNetworks(forgetAfter: .seconds(86400), limit: limit, now: t0 + 10)
            #expect(forgotten == (0, 4), "three of the rotating network's, and home's only heard")
            let bssids = try await column(path, "SELECT bssid FROM wifi_access_point")
            #expect(bssids == ["02:00:00:00:01:00", "02:00:00:02:04:00", "02:00:00:02:05:00", "02:00:00:02:06:00"])
            #expect(try await registry.networkRowCounts() == (2, 4))
        }
    }

    @Test func theLimitFollowsTheListsCap() {
        #expect(NetworkRowLimit() == NetworkRowLimit(networks: 4096, accessPoints: 16384))
        #expect(NetworkRowLimit(listing: 10) == NetworkRowLimit(networks: 160, accessPoints: 640))
    }
}
