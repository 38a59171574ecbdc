// The JSON form of the Wi-Fi items (issue 25's contract): exact text both ways.

import Foundation
import PeerScanModel
import Testing

@Suite struct WiFiItemCodingTests {
    private func encode(_ item: ScanItem) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(item), as: UTF8.self)
    }

    private func decode(_ json: String) throws -> ScanItem {
        try JSONDecoder().decode(ScanItem.self, from: Data(json.utf8))
    }

    let networkID = DeviceID(UUID(uuidString: "11111111-2222-5333-8444-555555555555")!)
    let interfaceID = DeviceID(UUID(uuidString: "99999999-2222-5333-8444-555555555555")!)

    @Test func aNetworkHasTheContractsFields() throws {
        let item = ScanItem.wifiNetwork(
            WiFiNetwork(
                id: networkID,
                ssid: "home",
                security: .wpa2Personal,
                accessPoints: [WiFiAccessPointInfo(bssid: "02:00:00:00:01:00", frequency: 2437)],
                bars: 3,
                isConnected: false
            )
        )
        let json = try encode(item)
        #expect(
            json == """
                {"accessPoints":[{"band":"2.4GHz","bssid":"02:00:00:00:01:00","channel":6,"frequency":2437}],\
                "bars":3,"connected":false,"id":"11111111-2222-5333-8444-555555555555","kind":"wifiNetwork",\
                "security":"wpa2-personal","ssid":"home"}
                """
        )
        #expect(try decode(json) == item)
    }

    @Test func aHiddenNetworkHasANullSSID() throws {
        let item = ScanItem.wifiNetwork(
            WiFiNetwork(
                id: networkID,
                ssid: nil,
                security: .open,
                accessPoints: [WiFiAccessPointInfo(bssid: "02:00:00:00:03:00", frequency: 5180)],
                bars: 0,
                isConnected: false
            )
        )
        let json = try encode(item)
        #expect(json.contains(#""ssid":null"#))
        #expect(json.contains(#""channel":36"#))
        #expect(try decode(json) == item)
    }

    @Test func anInterfaceWithAndWithoutAConnection() throws {
        let connected = ScanItem.wifiInterface(
            WirelessInterfaceStatus(
                id: interfaceID,
                name: "wlan0",
                isUp: true,
                connection: WiFiConnectionInfo(
                    network: networkID,
                    ssid: "home",
                    bssid: "02:00:00:00:01:00",
                    band: .band2_4GHz
                )
            )
        )
        let json = try encode(connected)
        #expect(
            json == """
                {"connected":{"band":"2.4GHz","bssid":"02:00:00:00:01:00",\
                "network":"11111111-2222-5333-8444-555555555555","ssid":"home"},\
                "id":"99999999-2222-5333-8444-555555555555","kind":"wifiInterface","name":"wlan0","up":true}
                """
        )
        #expect(try decode(json) == connected)
        let idle = ScanItem.wifiInterface(
            WirelessInterfaceStatus(id: interfaceID, name: "wlan1", isUp: false, connection: nil)
        )
        #expect(try encode(idle).contains(#""connected":null"#))
        #expect(try decode(try encode(idle)) == idle)
    }

    @Test func badBarsAndConfigIDsAreRefused() throws {
        let bad = """
            {"id":"11111111-2222-5333-8444-555555555555","kind":"wifiNetwork","ssid":"x","security":"open",\
            "accessPoints":[],"bars":5,"connected":false}
            """
        #expect(throws: DecodingError.self) { try decode(bad) }
        let stolen = """
            {"id":"\(DeviceID.host)","kind":"wifiInterface","name":"wlan0","up":true,"connected":null}
            """
        #expect(throws: DecodingError.self) { try decode(stolen) }
    }

    @Test func networksSortConnectedFirstThenBySSIDHiddenLast() {
        func network(_ ssid: String?, _ connected: Bool = false, id: Int = 1) -> WiFiNetwork {
            WiFiNetwork(
                id: DeviceID(UUID(uuidString: "00000000-0000-5000-8000-00000000000\(id)")!),
                ssid: ssid,
                security: .open,
                accessPoints: [],
                bars: 0,
                isConnected: connected
            )
        }
        let sorted = [
            network(nil, id: 1), network("beta"), network("Alpha"), network("zulu", true), network(nil, id: 0),
        ]
        .sorted(by: WiFiNetwork.displaysBefore)
        #expect(sorted.map(\.ssid) == ["zulu", "Alpha", "beta", nil, nil])
        #expect(sorted.last?.id.description.hasSuffix("1") == true)
    }
}
