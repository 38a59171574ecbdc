// The Wi-Fi networks on the broker: one retained topic per listed network beside the devices, updated when it
// changes, deleted when it leaves the list, and a stale one from before deleted after a reconnection.

import Foundation
import MQTTClient
import PeerScanModel
import Testing

@testable import PeerScanMQTT

private let topics = MQTTTopics(prefix: "peerscan/test", hostName: "scanner.example")

private func network(_ n: Int, bars: Int = 3) -> WiFiNetwork {
    WiFiNetwork(
        id: DeviceID(UUID(uuidString: String(format: "00000000-0000-5000-8000-%012d", n))!),
        ssid: "net\(n)",
        security: .wpa2Personal,
        accessPoints: [WiFiAccessPointInfo(bssid: String(format: "02:00:00:00:%02d:00", n), frequency: 2437)],
        bars: bars,
        isConnected: false
    )
}

private func snapshot(_ networks: [WiFiNetwork]) throws -> ScanSnapshot {
    try ScanSnapshot([(.config, [.scanning(enabled: true)]), (.networks, networks.map(ScanItem.wifiNetwork))])
}

/// Publishes what the mirror asks for onto a dictionary of retained topics, acknowledging at once.
private func deliver(_ mirror: inout MQTTMirror, to retained: inout [String: [UInt8]]) -> [MQTTMessage] {
    var all: [MQTTMessage] = []
    var id: Int32 = 1
    while case let messages = mirror.takeMessages(), !messages.isEmpty {
        for message in messages {
            if message.retain { retained[message.topic] = message.payload.isEmpty ? nil : message.payload }
            mirror.sent(messageID: id)
            mirror.acknowledged(messageID: id)
            id += 1
        }
        all += messages.filter(\.retain)
    }
    return all
}

@Suite struct MQTTMirrorWiFiTests {
    @Test func aNetworkHasARetainedTopicUntilItLeaves() throws {
        var mirror = MQTTMirror(settings: .init(topics: topics), snapshot: try snapshot([network(1)]), sequence: 0)
        var retained: [String: [UInt8]] = [:]
        mirror.connected()
        _ = deliver(&mirror, to: &retained)
        let topic = topics.wifiNetwork(network(1).id)
        #expect(topic == "peerscan/test/wifi/\(network(1).id)")
        let payload = try #require(retained[topic])
        #expect(try JSONDecoder().decode(ScanItem.self, from: Data(payload)) == .wifiNetwork(network(1)))

        mirror.apply(try snapshot([network(1, bars: 1)]).difference(from: mirror.snapshot), sequence: 1)
        let update = deliver(&mirror, to: &retained)
        #expect(update.map(\.topic) == [topic])
        #expect(try JSONDecoder().decode(ScanItem.self, from: Data(retained[topic]!)).wifiNetwork?.bars == 1)

        mirror.apply(try snapshot([]).difference(from: mirror.snapshot), sequence: 2)
        let removal = deliver(&mirror, to: &retained)
        #expect(removal.map(\.topic) == [topic] && removal.allSatisfy(\.payload.isEmpty))
        #expect(retained[topic] == nil)
        #expect(mirror.isSettled)
    }

    @Test func aStaleNetworkTopicFromBeforeIsDeletedAfterReconnecting() throws {
        var mirror = MQTTMirror(settings: .init(topics: topics), snapshot: try snapshot([network(1)]), sequence: 0)
        var retained: [String: [UInt8]] = [:]
        mirror.connected()
        #expect(mirror.subscriptions.contains(topics.allWiFiNetworks))
        let stale = topics.wifiNetwork(network(2).id)
        mirror.received(MQTTMessage(topic: stale, payload: Array("{}".utf8), retain: true))
        retained[stale] = Array("{}".utf8)
        _ = deliver(&mirror, to: &retained)
        #expect(retained[stale] == nil)
        #expect(retained[topics.wifiNetwork(network(1).id)] != nil)
    }
}
