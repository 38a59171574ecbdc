import Foundation
import MQTTClient
import PeerScanModel
import Testing

@testable import PeerScanMQTT

private let topics = MQTTTopics(prefix: "peerscan/test", hostName: "scanner.example")

private func tag(ephemeral: Bool = false, type: BluetoothAddressType = .public) -> Device {
    Device(
        id: DeviceID(UUID(uuidString: "00000000-0000-4000-8000-000000000042")!),
        hostName: nil,
        displayName: "Tag",
        addresses: [],
        interfaces: [],
        services: [],
        online: true,
        presenceReason: PresenceReason(.answered, ["ble"]),
        bluetooth: BluetoothFacts(
            address: "00:1a:7d:da:71:13",
            addressType: type,
            name: "Tag",
            manufacturer: "Apple, Inc.",
            bars: 3,
            isEphemeral: ephemeral
        )
    )
}

private func json(_ bytes: [UInt8]) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
}

/// Bluetooth devices on MQTT: the facts in the payload, `bluetooth_le` trackers, no tracker for ephemeral devices.
@Suite struct MQTTBluetoothTests {
    @Test func theDevicePayloadCarriesTheBluetoothFacts() throws {
        let payload = try json(MQTTPayloads.device(tag()))
        let facts = try #require(payload["bluetooth"] as? [String: Any])
        #expect(facts["address"] as? String == "00:1a:7d:da:71:13")
        #expect(facts["addressType"] as? String == "public")
        #expect(facts["manufacturer"] as? String == "Apple, Inc." && facts["bars"] as? Int == 3)
        #expect(facts["ephemeral"] as? Bool == false)
        #expect(!String(decoding: MQTTPayloads.device(tag()), as: UTF8.self).contains("irk"))
    }

    @Test func aBluetoothOnlyDeviceIsABluetoothLETracker() throws {
        let config = try json(MQTTPayloads.homeAssistantConfig(tag(), topics: topics))
        #expect(config["source_type"] as? String == "bluetooth_le")
        let block = try #require(config["device"] as? [String: Any])
        #expect(block["connections"] as? [[String]] == [["bluetooth", "00:1a:7d:da:71:13"]])
        #expect(block["manufacturer"] as? String == "Apple, Inc.")
        let rotating = try json(MQTTPayloads.homeAssistantConfig(tag(type: .resolvablePrivate), topics: topics))
        #expect((rotating["device"] as? [String: Any])?["connections"] as? [[String]] == [])
    }

    @Test func aDeviceAlsoOnTheLANStaysARouterTracker() throws {
        var device = tag()
        device.macAddresses = ["3c:22:fb:44:55:66"]
        device.addresses = ["192.0.2.5"]
        let config = try json(MQTTPayloads.homeAssistantConfig(device, topics: topics))
        #expect(config["source_type"] as? String == "router")
    }

    @Test func anEphemeralDeviceIsNotMirrored() throws {
        var snapshot = ScanSnapshot()
        try snapshot.appendSections([.config, .networks])
        try snapshot.appendItems([.scanning(enabled: true)], toSection: .config)
        try snapshot.appendItems([.device(tag(ephemeral: true))], toSection: .networks)
        var mirror = MQTTMirror(
            settings: MQTTMirror.Settings(topics: topics, homeAssistant: true),
            snapshot: snapshot,
            sequence: 0
        )
        mirror.connected()
        var topicsPublished: [String] = []
        var messageID: Int32 = 1
        while case let messages = mirror.takeMessages(), !messages.isEmpty {
            for message in messages {
                topicsPublished.append(message.topic)
                mirror.sent(messageID: messageID)
                mirror.acknowledged(messageID: messageID)
                messageID += 1
            }
        }
        #expect(!topicsPublished.contains(topics.device(tag().id)), "listed while heard only: not mirrored")
        #expect(!topicsPublished.contains(topics.discoveryConfig(tag().id)))
    }
}
