// What goes through a connection: the messages, the events it reports, and its errors.

/// A message to publish.
public struct MQTTMessage: Sendable, Equatable {
    /// The topic.
    public var topic: String
    /// The payload; empty with `retain` deletes the topic's retained message.
    public var payload: [UInt8]
    /// The quality of service: 0 (at most once), 1 (at least once) or 2 (exactly once).
    public var qos: Int
    /// Whether the broker keeps it for later subscribers.
    public var retain: Bool

    /// Creates a message.
    public init(topic: String, payload: [UInt8], qos: Int = 1, retain: Bool = false) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
    }
}

/// What happened on an ``MQTTConnection``.
public enum MQTTEvent: Sendable, Equatable {
    /// Connected (again): the broker accepted the session, speaking this MQTT version (5 or 4, i.e. 3.1.1).
    case connected(protocolVersion: Int)
    /// A connection attempt failed or the connection was lost; the connection tries again by itself.
    case disconnected(reason: String)
    /// The broker acknowledged the message with this identifier (QoS 1 and 2), or it was sent (QoS 0).
    case published(messageID: Int32)
    /// A message arrived on a subscription.
    case received(MQTTMessage)
}

/// Why an MQTT operation failed.
public enum MQTTError: Error, Equatable, CustomStringConvertible {
    /// libmosquitto refused the operation.
    case library(operation: String, code: Int32, message: String)

    public var description: String {
        switch self {
        case .library(let operation, _, let message): "\(operation): \(message)"
        }
    }
}
