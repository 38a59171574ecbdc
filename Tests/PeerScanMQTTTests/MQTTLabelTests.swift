import Foundation
import PeerScanModel
import Testing

@testable import PeerScanMQTT

/// A person's label on MQTT: the device topic's item carries it, and Home Assistant's device is named after it.
@Suite struct MQTTLabelTests {
    @Test func aLabelNamesTheHomeAssistantDeviceAndTheItemCarriesIt() throws {
        let found = Device(
            id: DeviceID.make(macAddress: "00:00:0c:00:00:01"),
            hostName: nil,
            displayName: nil,
            addresses: ["192.0.2.20"],
            interfaces: ["eth0"],
            services: [],
            macAddresses: ["00:00:0c:00:00:01"]
        )
        let labelled = found.labelled(DeviceLabel(name: "Kitchen plug", isImportant: true))
        let topics = MQTTTopics(prefix: "peerscan", hostName: "scanner")
        let config = try JSONSerialization.jsonObject(
            with: Data(MQTTPayloads.homeAssistantConfig(labelled, topics: topics))
        )
        let device = try #require((config as? [String: Any])?["device"] as? [String: Any])
        #expect(device["name"] as? String == "Kitchen plug")
        let item = try #require(
            try JSONSerialization.jsonObject(with: Data(MQTTPayloads.device(labelled))) as? [String: Any]
        )
        #expect(item["label"] as? String == "Kitchen plug" && item["important"] as? Bool == true)
        #expect(item["displayName"] as? String == "Kitchen plug")
        // Unlabelled, a MAC-only device is named after its MAC address, as before.
        let plain = try JSONSerialization.jsonObject(
            with: Data(MQTTPayloads.homeAssistantConfig(found, topics: topics))
        )
        #expect(((plain as? [String: Any])?["device"] as? [String: Any])?["name"] as? String == "00:00:0c:00:00:01")
    }
}
