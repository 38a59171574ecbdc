import Discovery
import Foundation
import Nl80211
import PeerScanModel
import Testing

@testable import WirelessSource

/// The scan results of `Fixtures/hwsim-scan-dump.txt`: real beacons and probe responses from hostapd.
enum HwsimFixture {
    static func load() throws -> [Nl80211BSS] {
        let path = String(#filePath).replacingOccurrences(
            of: "HwsimFixtureTests.swift",
            with: "Fixtures/hwsim-scan-dump.txt"
        )
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return text.split(separator: "\n").filter { $0.hasPrefix("BSS ") }.map { line in
            let fields = line.split(separator: " ").map(String.init)
            func hex(_ text: Substring) -> [UInt8] {
                let digits = Array(text.utf8)
                return stride(from: 0, to: digits.count - 1, by: 2).map { index in
                    UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16)!
                }
            }
            let beacon = hex(fields[8].dropFirst("beacon=".count))
            return Nl80211BSS(
                bssid: hex(Substring(fields[1])),
                frequency: Int(fields[2])!,
                signalMBM: Int(fields[3]),
                seenMillisecondsAgo: Int(fields[4]),
                capability: UInt16(fields[5]),
                status: nil,
                informationElements: hex(fields[7].dropFirst("ies=".count)),
                beaconInformationElements: beacon.isEmpty ? nil : beacon
            )
        }
    }
}

@Suite struct HwsimFixtureTests {
    @Test func everyAccessPointOfTheGuestIsReadAsHostapdServesIt() throws {
        let points = try HwsimFixture.load().map { WirelessConversion.accessPoint($0, now: .seconds(100)) }
        let byBSSID = Dictionary(uniqueKeysWithValues: points.map { ($0.bssid, $0) })
        let expected: [(String, String?, WiFiSecurity, Int)] = [
            ("02:00:00:00:00:00", "wifivm-open", .open, 2412),
            ("02:00:00:00:01:00", "wifivm-wpa2", .wpa2Personal, 2437),
            ("02:00:00:00:02:00", "wifivm-sae", .wpa3Personal, 2462),
            ("02:00:00:00:03:00", nil, .wpa2Personal, 2462),
            ("02:00:00:00:04:00", "wifivm-5g", .wpa2Personal, 5180),
            ("02:00:00:00:05:00", "wifivm-owe", .owe, 2412),
        ]
        #expect(points.count == expected.count)
        for (bssid, ssid, security, frequency) in expected {
            let point = try #require(byBSSID[bssid], "\(bssid)")
            #expect(point.ssid == ssid, "\(bssid)")
            #expect(point.security == security, "\(bssid)")
            #expect(point.frequency == frequency, "\(bssid)")
        }
        #expect(byBSSID["02:00:00:00:04:00"]?.signal == -27)
        #expect(byBSSID["02:00:00:00:00:00"]?.lastSeen == .seconds(100) - .milliseconds(2916))
    }
}
