import Foundation
import GRDB
import Logging
import PeerScanCore
import PeerScanModel
import TestSupport
import Testing

@testable import DeviceRegistry

private let t0 = Date(timeIntervalSince1970: 1_790_000_000)

private func sighting(_ ssid: String?, _ security: WiFiSecurity, _ bssid: String) -> WirelessRecords.Sighting {
    WirelessRecords.Sighting(
        network: DeviceID.make(networkOf: (ssid: ssid, security: security, bssid: bssid)),
        ssid: ssid,
        security: security,
        bssid: bssid
    )
}

/// The registry remembers Wi-Fi networks (migration `wifi`): what the evil-twin checks need after a restart.
@Suite struct WiFiNetworkRegistryTests {
    @Test func networksAndTheirAccessPointsSurviveAReopen() async throws {
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
            let known = reopened.knownNetworks
            #expect(
                known.networkIDs == [
                    home.network, DeviceID.make(hiddenNetworkBSSID: "02:00:00:00:03:00"),
                ]
            )
            #expect(known.securitiesBySSID == ["home": [.wpa2Personal]])
            #expect(known.bssidsBySSID == ["home": ["02:00:00:00:01:00", "02:00:00:00:02:00"]])
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
}
