// The mirror of the snapshot on a broker: what it publishes on connection, on changes, after a loss, and how it
// stays bounded. The broker here is a dictionary of retained topics fed with what the mirror publishes.

import Foundation
import MQTTClient
import PeerScanModel
import Testing

@testable import PeerScanMQTT

private let topics = MQTTTopics(prefix: "peerscan/test", hostName: "scanner.example")

private func device(_ n: Int, online: Bool = true, mac: String? = nil) -> Device {
    Device(
        id: DeviceID(UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", n))!),
        hostName: "host\(n).local",
        displayName: "host\(n)",
        addresses: ["192.0.2.\(n)"],
        interfaces: ["lan0"],
        services: [],
        macAddresses: mac.map { [$0] } ?? [],
        vendor: mac == nil ? nil : "Cisco Systems, Inc",
        online: online
    )
}

private func snapshot(_ devices: [Device], scanning: Bool = true) throws -> ScanSnapshot {
    var snapshot = ScanSnapshot()
    try snapshot.appendSections([.config])
    try snapshot.appendItems([.scanning(enabled: scanning)], toSection: .config)
    if scanning {
        try snapshot.appendSections([.networks])
        try snapshot.appendItems(devices.map { .device($0) }, toSection: .networks)
    }
    return snapshot
}

/// A broker's retained topics, as the mirror's messages leave them; acknowledges everything at once.
private struct Broker {
    var retained: [String: [UInt8]] = [:]
    var events: [[UInt8]] = []
    /// Every retained message, in the order published.
    var log: [MQTTMessage] = []
    var published = 0
    var nextID: Int32 = 1

    mutating func deliver(_ mirror: inout MQTTMirror, acknowledge: Bool = true) {
        while true {
            let messages = mirror.takeMessages()
            if messages.isEmpty { return }
            for message in messages {
                published += 1
                if message.retain {
                    log.append(message)
                    retained[message.topic] = message.payload.isEmpty ? nil : message.payload
                } else {
                    events.append(message.payload)
                }
                mirror.sent(messageID: nextID)
                if acknowledge { mirror.acknowledged(messageID: nextID) }
                nextID += 1
            }
            if !acknowledge { return }
        }
    }

    func text(_ topic: String) -> String? { retained[topic].map { String(decoding: $0, as: UTF8.self) } }
}

/// Whether an MQTT topic matches a filter with `+` (one level) wildcards.
private func matches(_ topic: String, _ filter: String) -> Bool {
    let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
    let wanted = filter.split(separator: "/", omittingEmptySubsequences: false)
    return levels.count == wanted.count && zip(levels, wanted).allSatisfy { $1 == "+" || $0 == $1 }
}

private func json(_ bytes: [UInt8]) throws -> [String: Any] {
    try #require(JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
}

@Suite struct MQTTMirrorTests {
    @Test func aConnectionPublishesTheStatusASnapshotEventAndEveryDevice() throws {
        let devices = [device(1), device(2)]
        var mirror = MQTTMirror(settings: .init(topics: topics), snapshot: try snapshot(devices), sequence: 7)
        var broker = Broker()
        #expect(mirror.takeMessages().isEmpty, "nothing while disconnected")
        mirror.connected()
        broker.deliver(&mirror)
        #expect(broker.text("peerscan/test/status") == "online")
        #expect(broker.retained.count == 3)
        let first = try json(try #require(broker.retained[topics.device(devices[0].id)]))
        #expect(first["kind"] as? String == "peer" && first["hostName"] as? String == "host1.local")
        #expect(first["id"] as? String == devices[0].id.description)
        let event = try json(try #require(broker.events.first))
        #expect(event["event"] as? String == "snapshot" && event["sequence"] as? Int == 7)
        #expect(mirror.isSettled)
    }

    @Test func changesPublishTheirDevicesAndOneEventEach() throws {
        var mirror = MQTTMirror(settings: .init(topics: topics), snapshot: try snapshot([device(1)]), sequence: 0)
        var broker = Broker()
        mirror.connected()
        broker.deliver(&mirror)
        let before = broker.published
        let old = mirror.snapshot
        let new = try snapshot([device(1, online: false), device(2)])
        mirror.apply(new.difference(from: old), sequence: 1)
        broker.deliver(&mirror)
        #expect(broker.published - before == 3, "two device topics and one event")
        #expect(try json(try #require(broker.retained[topics.device(device(1).id)]))["online"] as? Bool == false)
        #expect(broker.retained[topics.device(device(2).id)] != nil)
        let event = try json(try #require(broker.events.last))
        #expect(event["event"] as? String == "changeset" && event["sequence"] as? Int == 1)

        mirror.apply(try snapshot([device(2)]).difference(from: mirror.snapshot), sequence: 2)
        broker.deliver(&mirror)
        #expect(broker.retained[topics.device(device(1).id)] == nil, "a removed device's topic is deleted")
        mirror.apply(try snapshot([], scanning: false).difference(from: mirror.snapshot), sequence: 3)
        broker.deliver(&mirror)
        #expect(broker.retained.keys.sorted() == ["peerscan/test/status"], "scanning off: every device goes")
    }

    @Test func updatesInPlaceAndStructuralChangesKeepTheMirroredSnapshotEqualToTheStores() throws {
        var store = try snapshot([device(1), device(2)])
        var mirror = MQTTMirror(settings: .init(topics: topics), snapshot: store, sequence: 0)
        let steps = [
            try snapshot([device(1, online: false), device(2)]),  // updates only: applied in place
            try snapshot([device(2), device(1, online: false), device(3)]),  // a move and an insert
            try snapshot([device(2, mac: "00:00:0c:00:00:02"), device(3)]),  // a delete and an update
        ]
        for (n, next) in steps.enumerated() {
            mirror.apply(next.difference(from: store), sequence: UInt64(n + 1))
            store = next
            #expect(mirror.snapshot == store, "after step \(n + 1)")
        }
        var broker = Broker()
        mirror.connected()
        broker.deliver(&mirror)
        let devices = try broker.retained.filter { $0.key.contains("/devices/") }.mapValues { try json($0) }
        #expect(devices.count == 2)
        #expect(devices.values.contains { $0["macAddresses"] as? [String] == ["00:00:0c:00:00:02"] })
    }

    @Test func aDeviceRemovedWhileDisconnectedIsDeletedOnReconnection() throws {
        var mirror = MQTTMirror(
            settings: .init(topics: topics),
            snapshot: try snapshot([device(1), device(2)]),
            sequence: 0
        )
        var broker = Broker()
        mirror.connected()
        broker.deliver(&mirror)
        mirror.disconnected()
        mirror.apply(try snapshot([device(2)]).difference(from: mirror.snapshot), sequence: 1)
        #expect(mirror.takeMessages().isEmpty)
        #expect(mirror.droppedEvents == 1)
        mirror.connected()
        // The broker hands back what it retained from before, on subscription.
        for (topic, payload) in broker.retained where topic.contains("/devices/") {
            mirror.received(MQTTMessage(topic: topic, payload: payload, retain: true))
        }
        broker.deliver(&mirror)
        #expect(broker.retained[topics.device(device(1).id)] == nil)
        #expect(broker.retained[topics.device(device(2).id)] != nil)
        let event = try json(try #require(broker.events.last))
        #expect(event["event"] as? String == "snapshot" && event["sequence"] as? Int == 1)
    }

    @Test func retainedTopicsOfAnotherRunAreDeletedAndLiveEchoesIgnored() throws {
        var mirror = MQTTMirror(settings: .init(topics: topics), snapshot: try snapshot([device(1)]), sequence: 0)
        var broker = Broker()
        let stale = topics.device(device(9).id)
        let staleConfig = topics.discoveryConfig(device(9).id)
        broker.retained[stale] = Array("{}".utf8)
        broker.retained[staleConfig] = Array("{}".utf8)
        mirror.connected()
        mirror.received(MQTTMessage(topic: stale, payload: Array("{}".utf8), retain: true))
        mirror.received(MQTTMessage(topic: staleConfig, payload: Array("{}".utf8), retain: true))
        mirror.received(MQTTMessage(topic: topics.device(device(8).id), payload: Array("{}".utf8), retain: false))
        mirror.received(MQTTMessage(topic: "peerscan/other/devices/x", payload: Array("{}".utf8), retain: true))
        broker.deliver(&mirror)
        #expect(broker.retained[stale] == nil && broker.retained[staleConfig] == nil)
        #expect(broker.retained.count == 2, "status and device 1: \(broker.retained.keys.sorted())")
    }

    // A restarted daemon whose first snapshot lacks a device the registry remembers (not found again yet, or scanning
    // is off) must not delete it: Home Assistant would remove its entity and the user's changes with it.
    @Test func aRememberedDeviceTheSnapshotLacksKeepsItsTopicsShownOffline() throws {
        let settings = MQTTMirror.Settings(topics: topics, homeAssistant: true)
        let kept = device(1)
        let earlier = MQTTMirror(settings: settings, snapshot: try snapshot([kept, device(2)]), sequence: 0)
        var broker = Broker()
        var run = earlier
        run.connected()
        broker.deliver(&run)
        let config = try #require(broker.retained[topics.discoveryConfig(kept.id)])

        var restarted = MQTTMirror(
            settings: settings,
            snapshot: try snapshot([]),
            sequence: 0,
            isRemembered: { $0 == kept.id }
        )
        restarted.connected()
        broker.log = []
        for topic in restarted.subscriptions.flatMap({ filter in broker.retained.keys.filter { matches($0, filter) } })
        {
            restarted.received(MQTTMessage(topic: topic, payload: broker.retained[topic]!, retain: true))
        }
        broker.deliver(&restarted)
        #expect(broker.retained[topics.discoveryConfig(kept.id)] == config, "its config is not touched")
        let shown = try json(try #require(broker.retained[topics.device(kept.id)]))
        #expect(shown["online"] as? Bool == false, "shown absent")
        #expect(shown["hostName"] as? String == kept.hostName, "with what was known of it")
        #expect(!broker.log.contains { $0.topic == topics.discoveryConfig(kept.id) })
        #expect(broker.retained[topics.device(device(2).id)] == nil, "a device the registry forgot goes")
        #expect(broker.retained[topics.discoveryConfig(device(2).id)] == nil)
    }

    // Home Assistant renders a tracker's state from its state topic until the config is gone: deleting the state
    // first made it render an empty payload (a template error per device).
    @Test func aDeviceThatGoesHasItsConfigDeletedBeforeItsStateTopic() throws {
        let settings = MQTTMirror.Settings(topics: topics, homeAssistant: true)
        var mirror = MQTTMirror(settings: settings, snapshot: try snapshot([device(1)]), sequence: 0)
        var broker = Broker()
        mirror.connected()
        broker.deliver(&mirror)
        #expect(
            broker.log.map(\.topic) == [
                topics.status, topics.device(device(1).id), topics.discoveryConfig(device(1).id),
            ],
            "created: the state first, so that it is there when the config subscribes to it"
        )
        broker.log = []
        mirror.apply(try snapshot([]).difference(from: mirror.snapshot), sequence: 1)
        broker.deliver(&mirror)
        #expect(broker.log.map(\.topic) == [topics.discoveryConfig(device(1).id), topics.device(device(1).id)])
        #expect(broker.log.allSatisfy { $0.payload.isEmpty })
        #expect(
            mirror.subscriptions == [topics.allDiscoveryConfigs, topics.allDevices, topics.allWiFiNetworks],
            "after a reconnection the broker hands back configs first: a stale device's config is deleted first"
        )
    }

    // What this run saw leave the list goes, remembered or not; what scanning off merely stops listing stays, offline.
    @Test func aDeviceSeenLeavingGoesAndOneNoLongerListedBecauseScanningIsOffStays() throws {
        let settings = MQTTMirror.Settings(topics: topics, homeAssistant: true)
        var mirror = MQTTMirror(
            settings: settings,
            snapshot: try snapshot([device(1), device(2)]),
            sequence: 0,
            isRemembered: { _ in true }
        )
        var broker = Broker()
        mirror.connected()
        broker.deliver(&mirror)
        mirror.apply(try snapshot([device(1)]).difference(from: mirror.snapshot), sequence: 1)
        broker.deliver(&mirror)
        #expect(broker.retained[topics.device(device(2).id)] == nil, "it left while scanning was on")
        #expect(broker.retained[topics.discoveryConfig(device(2).id)] == nil)

        mirror.apply(try snapshot([], scanning: false).difference(from: mirror.snapshot), sequence: 2)
        broker.deliver(&mirror)
        let kept = try json(try #require(broker.retained[topics.device(device(1).id)]))
        #expect(kept["online"] as? Bool == false, "scanning off: not listed, shown absent, not deleted")
        #expect(broker.retained[topics.discoveryConfig(device(1).id)] != nil)

        mirror.apply(try snapshot([device(1)]).difference(from: mirror.snapshot), sequence: 3)
        broker.deliver(&mirror)
        #expect(try json(try #require(broker.retained[topics.device(device(1).id)]))["online"] as? Bool == true)
    }

    @Test func theTrackerTemplateIgnoresAPayloadThatIsNotADevice() throws {
        #expect(MQTTPayloads.offline(devicePayload: Array("".utf8)) == nil)
        #expect(MQTTPayloads.offline(devicePayload: Array("{\"kind\":\"scanning\"}".utf8)) == nil)
        let offline = try #require(MQTTPayloads.offline(devicePayload: MQTTPayloads.device(device(4))))
        #expect(try json(offline)["online"] as? Bool == false)
        #expect(MQTTPayloads.valueTemplate.hasPrefix("{% if value_json is defined"))
    }

    @Test func homeAssistantConfigsFollowTheDiscoverySchema() throws {
        let settings = MQTTMirror.Settings(topics: topics, homeAssistant: true)
        let printer = device(3, mac: "00:00:0c:12:34:56")
        var mirror = MQTTMirror(settings: settings, snapshot: try snapshot([printer]), sequence: 0)
        var broker = Broker()
        mirror.connected()
        broker.deliver(&mirror)
        let topic = "homeassistant/device_tracker/scanner_example/\(printer.id)/config"
        let config = try json(try #require(broker.retained[topic]))
        #expect(config["unique_id"] as? String == "peerscan_scanner_example_\(printer.id)")
        let slug = "peerscan_scanner_example_\(printer.id.description.replacingOccurrences(of: "-", with: "_"))"
        #expect(config["default_entity_id"] as? String == "device_tracker.\(slug)")
        #expect(config["object_id"] == nil, "ignored since Home Assistant 2026.4")
        #expect(config["state_topic"] as? String == "peerscan/test/devices/\(printer.id)")
        #expect(config["json_attributes_topic"] as? String == "peerscan/test/devices/\(printer.id)")
        #expect(config["availability_topic"] as? String == "peerscan/test/status")
        #expect(config["payload_available"] as? String == "online")
        #expect(config["payload_not_available"] as? String == "offline")
        #expect(config["source_type"] as? String == "router")
        #expect(
            config["value_template"] as? String
                == "{% if value_json is defined and value_json.online is defined %}"
                + "{{ 'home' if value_json.online else 'not_home' }}{% endif %}"
        )
        #expect(config.keys.contains("name") && config["name"] is NSNull, "named after its device")
        let block = try #require(config["device"] as? [String: Any])
        #expect(block["identifiers"] as? [String] == ["peerscan_\(printer.id)"])
        #expect(block["connections"] as? [[String]] == [["mac", "00:00:0c:12:34:56"]])
        #expect(block["manufacturer"] as? String == "Cisco Systems, Inc")
        #expect(block["name"] as? String == "host3")

        mirror.apply(try snapshot([]).difference(from: mirror.snapshot), sequence: 1)
        broker.deliver(&mirror)
        #expect(broker.retained[topic] == nil, "the config goes with the device")
    }

    @Test func atMostMaximumInFlightWaitForTheBrokerAndChangesCoalesce() throws {
        let settings = MQTTMirror.Settings(topics: topics, maximumInFlight: 10)
        let devices = (1...50).map { device($0) }
        var mirror = MQTTMirror(settings: settings, snapshot: try snapshot(devices), sequence: 0)
        var broker = Broker()
        mirror.connected()
        broker.deliver(&mirror, acknowledge: false)
        #expect(mirror.inFlightCount == 10)
        #expect(mirror.takeMessages().isEmpty, "no room until the broker acknowledges")
        // Every device changes five times meanwhile: each is still published once, as it is now.
        for round in 0..<5 {
            let changed = devices.map { device -> Device in
                var device = device
                device.addresses = ["198.51.100.\(round)"]
                return device
            }
            mirror.apply(try snapshot(changed).difference(from: mirror.snapshot), sequence: UInt64(round + 1))
        }
        for id in 1...10 { mirror.acknowledged(messageID: Int32(id)) }
        broker.deliver(&mirror)
        let deviceTopics = broker.retained.keys.filter { $0.contains("/devices/") }
        #expect(deviceTopics.count == 50)
        #expect(broker.published <= 10 + 50 + 5 + 1, "each device once more at most, not five times")
        for device in devices {
            let payload = try json(try #require(broker.retained[topics.device(device.id)]))
            #expect(payload["addresses"] as? [String] == ["198.51.100.4"])
        }
    }

    @Test func aFullEventQueueStartsTheStreamOverWithASnapshot() throws {
        let settings = MQTTMirror.Settings(topics: topics, maximumInFlight: 2, maximumQueuedEvents: 3)
        var mirror = MQTTMirror(settings: settings, snapshot: try snapshot([]), sequence: 0)
        var broker = Broker()
        mirror.connected()
        broker.deliver(&mirror, acknowledge: false)  // the status and the first snapshot: no room left
        for n in 1...5 {
            mirror.apply(
                try snapshot((1...n).map { device($0) }).difference(from: mirror.snapshot),
                sequence: UInt64(n)
            )
        }
        #expect(mirror.droppedEvents == 4, "three queued, the fourth drops them all; the fifth waits on a snapshot")
        mirror.acknowledged(messageID: 1)
        mirror.acknowledged(messageID: 2)
        broker.deliver(&mirror)
        #expect(broker.events.count == 2)
        let restart = try json(broker.events[1])
        #expect(restart["event"] as? String == "snapshot" && restart["sequence"] as? Int == 5)
        let sections = (restart["snapshot"] as? [String: Any])?["sections"] as? [[String: Any]]
        #expect((sections?.last?["items"] as? [Any])?.count == 5)
    }

    @Test func resyncComparesEveryDeviceAgain() throws {
        var mirror = MQTTMirror(
            settings: .init(topics: topics),
            snapshot: try snapshot([device(1), device(2)]),
            sequence: 0
        )
        var broker = Broker()
        mirror.connected()
        broker.deliver(&mirror)
        let published = broker.published
        mirror.resync(to: try snapshot([device(2), device(3)]), sequence: 40)
        broker.deliver(&mirror)
        #expect(broker.retained[topics.device(device(1).id)] == nil)
        #expect(broker.retained[topics.device(device(3).id)] != nil)
        #expect(broker.published - published == 3, "delete 1, publish 3, one snapshot event; 2 unchanged")
    }
}

@Suite struct MQTTSettingsTests {
    @Test(arguments: [
        ("mqtt://broker", "broker", 1883, false),
        ("mqtts://broker.example:9999", "broker.example", 9999, true),
        ("mqtts://broker", "broker", 8883, true),
        ("mqtt://[::1]:1884", "::1", 1884, false),
        ("MQTT://127.0.0.1", "127.0.0.1", 1883, false),
    ])
    func brokerURLs(text: String, host: String, port: Int, tls: Bool) throws {
        #expect(try MQTTBrokerURL(text) == MQTTBrokerURL(host: host, port: port, usesTLS: tls))
    }

    @Test(arguments: [
        "http://broker", "mqtt://", "broker:1883", "mqtt://user:pw@broker", "mqtt://b/path", "mqtt://b:0",
    ])
    func badBrokerURLsAreRefusedNamingThemselves(text: String) {
        #expect(throws: MQTTSettingError.invalidURL(text)) { try MQTTBrokerURL(text) }
    }

    @Test func credentialsComeFromAFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mqtt-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("mqtt").path
        try "scanner\ns3cret:with spaces\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(
            try MQTTCredentials(contentsOf: file)
                == MQTTCredentials(username: "scanner", password: "s3cret:with spaces")
        )
        try "scanner\r\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try MQTTCredentials(contentsOf: file) == MQTTCredentials(username: "scanner", password: nil))
        try "\nsecret\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(throws: MQTTSettingError.unreadableCredentials(path: file, reason: "no user name on its first line")) {
            try MQTTCredentials(contentsOf: file)
        }
        #expect(throws: MQTTSettingError.self) { try MQTTCredentials(contentsOf: directory.path + "/missing") }
    }

    @Test func topicsUseTheHostNameAsOneLevel() {
        let topics = MQTTTopics(prefix: nil, hostName: "gate/way+1.lan")
        #expect(topics.prefix == "peerscan/gate_way_1_lan")
        #expect(topics.clientID == "peerscand-peerscan_gate_way_1_lan")
        let id = DeviceID(UUID())
        #expect(topics.deviceID(inTopic: topics.device(id)) == id)
        #expect(topics.deviceID(inTopic: topics.discoveryConfig(id)) == id)
        #expect(topics.deviceID(inTopic: topics.status) == nil)
    }
}

@Suite struct HomeAssistantEntityIDTests {
    /// Home Assistant's `valid_entity_id` for the object part: lowercase letters, digits, single inner underscores.
    private func isValidObjectID(_ text: String) -> Bool {
        !text.isEmpty && !text.hasPrefix("_") && !text.hasSuffix("_") && !text.contains("__")
            && text.allSatisfy { ($0.isASCII && ($0.isLowercase || $0.isNumber)) || $0 == "_" }
    }

    @Test(arguments: [
        (
            "peerscan_scanner_E6FB4EA3-0000-5000-8000-00000000000A",
            "peerscan_scanner_e6fb4ea3_0000_5000_8000_00000000000a"
        ),
        ("peerscan_my--host__x_1", "peerscan_my_host_x_1"),
        ("-peerscan_café-", "peerscan_caf"),
        ("---", "peerscan"),
    ])
    func aUniqueIDBecomesAValidEntityID(unique: String, expected: String) {
        let slug = MQTTPayloads.entitySlug(unique)
        #expect(slug == expected)
        #expect(isValidObjectID(slug))
    }
}
