// The alerts' part of io.peerscan as peerscan-alerts reads and writes it: a small Codable mirror of the types fixed in
// the interface between peerscand and its sender (FollowAlerts, AckAlert). PeerScanModel will own the wire types once
// peerscand's side lands; until then this mirror is the sender's, field for field.

/// The alerts' messages of `io.peerscan`, as the sender sees them.
public enum AlertWire {
    /// An alert peerscand decided to send, kept in its outbox until every destination it was offered to acknowledged
    /// it.
    public struct Alert: Codable, Sendable, Equatable {
        /// A lowercase UUID, the same for every destination and retry: the receiver's idempotency key.
        public var id: String
        /// `new-device`, `offline`, `online`, `address-conflict`, `evil-twin`, `new-access-point`, `scanner-fault`,
        /// `test`.
        public var event: String
        /// When peerscand decided it, RFC 3339 UTC with milliseconds.
        public var created: String
        /// The device's id; `nil` for the scanner's own faults and for a test.
        public var device: String?
        /// A short title.
        public var title: String
        /// The message's text.
        public var message: String
        /// `min`, `low`, `default`, `high` or `urgent` (ntfy's words; ``AlertPriority`` maps them).
        public var priority: String
        /// Tags (ntfy shows known ones as emoji).
        public var tags: [String]
        /// The device's path on the page (`/devices/ID`), or `nil`; the sender prefixes its `--link-base`.
        public var link: String?
        /// What a template may use (`name`, `vendor`, `address`, `mac`, `reason`, …), all strings.
        public var fields: [String: String]

        /// An alert.
        public init(
            id: String,
            event: String,
            created: String,
            device: String? = nil,
            title: String,
            message: String,
            priority: String = "default",
            tags: [String] = [],
            link: String? = nil,
            fields: [String: String] = [:]
        ) {
            self.id = id
            self.event = event
            self.created = created
            self.device = device
            self.title = title
            self.message = message
            self.priority = priority
            self.tags = tags
            self.link = link
            self.fields = fields
        }
    }

    /// `FollowAlerts`' parameters: the destinations' names.
    public struct FollowAlertsParameters: Codable, Sendable, Equatable {
        public var destinations: [String]
        public init(destinations: [String]) { self.destinations = destinations }
    }

    /// One reply of `FollowAlerts`: an alert for one destination.
    public struct FollowAlertsReply: Codable, Sendable, Equatable {
        public var destination: String
        public var alert: Alert
        public init(destination: String, alert: Alert) {
            self.destination = destination
            self.alert = alert
        }
    }

    /// `AckAlert`'s parameters.
    public struct AckAlertParameters: Codable, Sendable, Equatable {
        public var id: String
        public var destination: String
        /// `sent` or `rejected`.
        public var outcome: String
        /// The receiver's status line and the start of its body (at most 512 bytes).
        public var answer: String?
        public init(id: String, destination: String, outcome: String, answer: String?) {
            self.id = id
            self.destination = destination
            self.outcome = outcome
            self.answer = answer
        }
    }

    /// The interface's name and the alert methods' qualified names.
    public static let followAlerts = "io.peerscan.FollowAlerts"
    public static let ackAlert = "io.peerscan.AckAlert"
    /// The error peerscand ends a `FollowAlerts` call with when another sender called it.
    public static let alertSenderReplaced = "io.peerscan.AlertSenderReplaced"
}
