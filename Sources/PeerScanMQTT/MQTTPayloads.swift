import Foundation
import PeerScanModel

/// The payloads peerscand publishes: JSON with sorted keys, as its other outputs.
public enum MQTTPayloads {
    /// A device topic's payload: the device's item exactly as in the snapshot
    /// (`{"addresses":[…],"id":…,"kind":"peer",…}`).
    public static func device(_ device: Device) -> [UInt8] {
        encode(ScanItem.device(device))
    }

    /// An `events` message for a changeset: `{"changes":{…},"event":"changeset","sequence":N}`, the line
    /// `peerscand --dump` writes.
    public static func changeset(_ changes: ScanChangeset, sequence: UInt64) -> [UInt8] {
        encode(Event(event: "changeset", sequence: sequence, snapshot: nil, changes: changes))
    }

    /// An `events` message for a whole snapshot: `{"event":"snapshot","sequence":N,"snapshot":{…}}`, the starting
    /// point of the changesets after it.
    public static func snapshot(_ snapshot: ScanSnapshot, sequence: UInt64) -> [UInt8] {
        encode(Event(event: "snapshot", sequence: sequence, snapshot: snapshot, changes: nil))
    }

    /// Home Assistant's discovery config of a device: a `device_tracker` (source `router`; `bluetooth_le` for a device
    /// seen only over Bluetooth LE) whose state is `home` while the device is online, with the device item as its
    /// attributes, available while the scanner is. Its HA device's `connections` are its MAC addresses and its
    /// Bluetooth identity address (`["bluetooth", ADDRESS]`), its `manufacturer` the OUI's vendor or else the company
    /// its advertisements name.
    ///
    /// The entity's `unique_id` is the scanner's node and the device id (`peerscan_<node>_<id>`), so that two
    /// scanners that see one device make two trackers; they share one Home Assistant device (its `identifiers` are
    /// the device id alone, its `connections` the MAC addresses). Its `default_entity_id` (Home Assistant 2025.10
    /// and later; `object_id` is ignored since 2026.4) is the same text made a valid entity id:
    /// `device_tracker.peerscan_<node>_<id>` in lowercase letters, digits and single underscores.
    public static func homeAssistantConfig(_ device: Device, topics: MQTTTopics) -> [UInt8] {
        let uniqueID = "peerscan_\(topics.node)_\(device.id)"
        let config = HomeAssistantTracker(
            name: nil,
            uniqueID: uniqueID,
            defaultEntityID: "device_tracker.\(entitySlug(uniqueID))",
            stateTopic: topics.device(device.id),
            valueTemplate: valueTemplate,
            payloadHome: "home",
            payloadNotHome: "not_home",
            sourceType: isBluetoothOnly(device) ? "bluetooth_le" : "router",
            jsonAttributesTopic: topics.device(device.id),
            availabilityTopic: topics.status,
            payloadAvailable: "online",
            payloadNotAvailable: "offline",
            device: .init(
                identifiers: ["peerscan_\(device.id)"],
                connections: device.macAddresses.map { ["mac", $0] } + bluetoothConnections(of: device),
                name: device.label,
                manufacturer: device.vendor ?? device.bluetooth?.manufacturer
            ),
            origin: .init(name: "peerscan")
        )
        return encode(config)
    }

    /// Whether the device was seen only over Bluetooth LE (no MAC address, no address on the LAN).
    static func isBluetoothOnly(_ device: Device) -> Bool {
        device.bluetooth != nil && device.macAddresses.isEmpty && device.addresses.isEmpty
    }

    /// `[["bluetooth", ADDRESS]]` for a public or random static address (a private one rotates), else none.
    static func bluetoothConnections(of device: Device) -> [[String]] {
        guard let facts = device.bluetooth, facts.addressType.isIdentity else { return [] }
        return [["bluetooth", facts.address]]
    }

    /// The tracker's value template: `home` or `not_home` from the device topic's `online`, and nothing (which Home
    /// Assistant ignores) for a payload that is not a device's JSON, such as the empty one of a deleted topic.
    static let valueTemplate =
        "{% if value_json is defined and value_json.online is defined %}"
        + "{{ 'home' if value_json.online else 'not_home' }}{% endif %}"

    /// A device topic's payload with the device shown offline, or `nil` if the payload is not a device's.
    ///
    /// For a device the registry remembers that is not in the snapshot (not found again since a restart, or scanning
    /// is off): its topics stay, showing it absent, so that a consumer keeps what it built on them (Home Assistant
    /// its entity, with the name a user gave it).
    public static func offline(devicePayload: [UInt8]) -> [UInt8]? {
        guard case .device(var device)? = try? JSONDecoder().decode(ScanItem.self, from: Data(devicePayload)) else {
            return nil  // not ours to rewrite: it is kept as it is
        }
        device.online = false
        return self.device(device)
    }

    private struct Event: Encodable {
        var event: String
        var sequence: UInt64
        var snapshot: ScanSnapshot?
        var changes: ScanChangeset?
    }

    /// The keys of Home Assistant's MQTT device tracker
    /// (https://www.home-assistant.io/integrations/device_tracker.mqtt/).
    private struct HomeAssistantTracker: Encodable {
        var name: String?
        var uniqueID: String
        var defaultEntityID: String
        var stateTopic: String
        var valueTemplate: String
        var payloadHome: String
        var payloadNotHome: String
        var sourceType: String
        var jsonAttributesTopic: String
        var availabilityTopic: String
        var payloadAvailable: String
        var payloadNotAvailable: String
        var device: Device
        var origin: Origin

        struct Device: Encodable {
            var identifiers: [String]
            var connections: [[String]]
            var name: String
            var manufacturer: String?
        }

        struct Origin: Encodable {
            var name: String
        }

        enum CodingKeys: String, CodingKey {
            // `name: null`: the entity is named after its device.
            case name, device, origin
            case uniqueID = "unique_id"
            case defaultEntityID = "default_entity_id"
            case stateTopic = "state_topic"
            case valueTemplate = "value_template"
            case payloadHome = "payload_home"
            case payloadNotHome = "payload_not_home"
            case sourceType = "source_type"
            case jsonAttributesTopic = "json_attributes_topic"
            case availabilityTopic = "availability_topic"
            case payloadAvailable = "payload_available"
            case payloadNotAvailable = "payload_not_available"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeNil(forKey: .name)
            try container.encode(uniqueID, forKey: .uniqueID)
            try container.encode(defaultEntityID, forKey: .defaultEntityID)
            try container.encode(stateTopic, forKey: .stateTopic)
            try container.encode(valueTemplate, forKey: .valueTemplate)
            try container.encode(payloadHome, forKey: .payloadHome)
            try container.encode(payloadNotHome, forKey: .payloadNotHome)
            try container.encode(sourceType, forKey: .sourceType)
            try container.encode(jsonAttributesTopic, forKey: .jsonAttributesTopic)
            try container.encode(availabilityTopic, forKey: .availabilityTopic)
            try container.encode(payloadAvailable, forKey: .payloadAvailable)
            try container.encode(payloadNotAvailable, forKey: .payloadNotAvailable)
            try container.encode(device, forKey: .device)
            try container.encode(origin, forKey: .origin)
        }
    }

    /// `text` as the object part of a Home Assistant entity id: lowercase ASCII letters and digits, every other run of
    /// characters one underscore, none at either end (Home Assistant's `valid_entity_id`).
    static func entitySlug(_ text: String) -> String {
        var slug = ""
        for character in text.lowercased() {
            if character.isASCII && (character.isLetter || character.isNumber) {
                slug.append(character)
            } else if !slug.isEmpty && slug.last != "_" {
                slug.append("_")
            }
        }
        while slug.last == "_" { slug.removeLast() }
        return slug.isEmpty ? "peerscan" : slug
    }

    static func encode(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Our own types, whose encoding cannot fail.
        return (try? Array(encoder.encode(value))) ?? []
    }
}
