import Foundation

/// What an alert is about: io.peerscan's `event` words (docs/alerts.md).
public enum AlertEvent: String, Hashable, Sendable, Codable, CaseIterable {
    /// A device seen for the first time.
    case newDevice = "new-device"
    /// A device stopped answering (the transition held: its presence reason says what went unanswered).
    case offline
    /// A device answers again.
    case online
    /// One address claimed by two MAC addresses.
    case addressConflict = "address-conflict"
    /// An access point of a known network that is not in the baseline.
    case evilTwin = "evil-twin"
    /// A new access point of a known network.
    case newAccessPoint = "new-access-point"
    /// The scanner's own fault: Avahi failed or is gone, a system limit reached.
    case scannerFault = "scanner-fault"
    /// A test alert (`peerscanctl notify test`).
    case test
}

/// How urgent an alert is: ntfy's words, which the sender maps for other destinations.
public enum AlertPriority: String, Hashable, Sendable, Codable, CaseIterable {
    case min, low, `default`, high, urgent
}

/// An alert peerscand decided to send, as its outbox keeps it and `FollowAlerts` offers it (io.peerscan's `Alert`).
public struct Alert: Hashable, Sendable, Codable, Identifiable {
    /// The alert's identifier: the same for every destination and retry (the receiver's idempotency key).
    public var id: UUID
    /// What it is about.
    public var event: AlertEvent
    /// When peerscand decided it.
    public var created: Date
    /// The device it is about; `nil` for the scanner's own faults and for a test.
    public var device: DeviceID?
    /// A short English title with the device's name.
    public var title: String
    /// A short English message.
    public var message: String
    /// How urgent it is.
    public var priority: AlertPriority
    /// ntfy's tags (emoji short codes or words).
    public var tags: [String]
    /// The device's path on the page (`/devices/ID`), `nil` when none.
    public var link: String?
    /// What a template may use (`name`, `vendor`, `address`, `mac`, `reason`, `label`, `ssid`, `bssid`, …).
    public var fields: [String: String]

    /// Creates an alert.
    public init(
        id: UUID,
        event: AlertEvent,
        created: Date,
        device: DeviceID?,
        title: String,
        message: String,
        priority: AlertPriority,
        tags: [String],
        link: String?,
        fields: [String: String]
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

/// A person's rule: which events alert for a device, or for every device without a rule of its own (io.peerscan's
/// `AlertRule`).
public struct AlertRule: Hashable, Sendable, Codable {
    /// The device; `nil` for the default rule.
    public var device: DeviceID?
    /// The events that alert (empty: none).
    public var events: [AlertEvent]

    /// Creates a rule.
    public init(device: DeviceID?, events: [AlertEvent]) {
        self.device = device
        self.events = events
    }
}
