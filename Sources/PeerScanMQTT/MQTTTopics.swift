import PeerScanModel

/// The topics one scanner publishes to.
///
/// | Topic | Retained | Payload |
/// |---|---|---|
/// | `<prefix>/status` | yes | `online`, or `offline` (also the broker's last will) |
/// | `<prefix>/devices/<id>` | yes | the device item as JSON, as in the snapshot; empty once removed |
/// | `<prefix>/wifi/<id>` | yes | the Wi-Fi network item as JSON, as in the snapshot; empty once it left the list |
/// | `<prefix>/events` | no | a snapshot at each (re)connection, then one message per changeset |
/// | `homeassistant/device_tracker/<node>/<id>/config` | yes | Home Assistant discovery (opt-in) |
public struct MQTTTopics: Sendable, Equatable {
    /// The prefix of this scanner's own topics, e.g. `peerscan/gateway`.
    public var prefix: String
    /// The prefix of Home Assistant's discovery topics (its `discovery_prefix`, `homeassistant` by default).
    public var discoveryPrefix: String
    /// This scanner's node id in discovery topics: its host name, reduced to the characters Home Assistant allows
    /// there (`[a-zA-Z0-9_-]`).
    public var node: String

    /// Creates the topics of a scanner.
    /// - Parameters:
    ///   - prefix: The prefix of the scanner's topics; `nil` for `peerscan/<hostName>`.
    ///   - hostName: The scanner's host name.
    ///   - discoveryPrefix: Home Assistant's discovery prefix.
    public init(prefix: String?, hostName: String, discoveryPrefix: String = "homeassistant") {
        let node = Self.topicLevel(hostName)
        self.prefix = prefix ?? "peerscan/\(node)"
        self.discoveryPrefix = discoveryPrefix
        self.node = node
    }

    /// The client identifier this scanner connects with: one per prefix, so that scanners on one host (or hosts of
    /// one name) with their own prefixes do not take each other's session.
    public var clientID: String { "peerscand-\(Self.topicLevel(prefix))" }

    /// `<prefix>/status`.
    public var status: String { "\(prefix)/status" }
    /// `<prefix>/events`.
    public var events: String { "\(prefix)/events" }
    /// `<prefix>/devices/+`: a filter for every device topic.
    public var allDevices: String { "\(prefix)/devices/+" }
    /// `<discovery prefix>/device_tracker/<node>/+/config`: a filter for every discovery topic of this scanner.
    public var allDiscoveryConfigs: String { "\(discoveryPrefix)/device_tracker/\(node)/+/config" }

    /// `<prefix>/devices/<id>`.
    public func device(_ id: DeviceID) -> String { "\(prefix)/devices/\(id)" }

    /// `<prefix>/wifi/+`: a filter for every Wi-Fi network topic.
    public var allWiFiNetworks: String { "\(prefix)/wifi/+" }

    /// `<prefix>/wifi/<id>`: a Wi-Fi network's topic.
    public func wifiNetwork(_ id: DeviceID) -> String { "\(prefix)/wifi/\(id)" }

    /// The Wi-Fi network a topic of this scanner names, if it names one.
    public func wifiNetworkID(inTopic topic: String) -> DeviceID? {
        let networks = "\(prefix)/wifi/"
        guard topic.hasPrefix(networks) else { return nil }
        return DeviceID(text: String(topic.dropFirst(networks.count)))
    }

    /// `<discovery prefix>/device_tracker/<node>/<id>/config`.
    public func discoveryConfig(_ id: DeviceID) -> String {
        "\(discoveryPrefix)/device_tracker/\(node)/\(id)/config"
    }

    /// The device a device or discovery topic of this scanner names, if it names one.
    public func deviceID(inTopic topic: String) -> DeviceID? {
        let devices = "\(prefix)/devices/"
        if topic.hasPrefix(devices) {
            return DeviceID(text: String(topic.dropFirst(devices.count)))
        }
        let configs = "\(discoveryPrefix)/device_tracker/\(node)/"
        if topic.hasPrefix(configs), topic.hasSuffix("/config") {
            return DeviceID(text: String(topic.dropFirst(configs.count).dropLast("/config".count)))
        }
        return nil
    }

    /// A host name as one topic level: letters, digits, `-` and `_` kept, anything else (dots, wildcards, slashes)
    /// as `_`.
    static func topicLevel(_ name: String) -> String {
        let level = String(
            name.unicodeScalars.map { scalar -> Character in
                switch scalar {
                case "a"..."z", "A"..."Z", "0"..."9", "-", "_": Character(scalar)
                default: "_"
                }
            }
        )
        return level.isEmpty ? "_" : level
    }
}
