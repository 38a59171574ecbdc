// The wire form of the alerts' methods (see docs/protocol.md and docs/alerts.md): FollowAlerts, AckAlert,
// SendTestAlert, SetAlertRule, ListAlertRules, and their errors NoAlertSender, AlertSenderReplaced,
// UnknownDestination.

import Foundation

extension PeerScanWire {
    /// The error of SendTestAlert while no FollowAlerts call is open.
    public static let noAlertSenderError = "io.peerscan.NoAlertSender"
    /// The error that ends a FollowAlerts call when another starts.
    public static let alertSenderReplacedError = "io.peerscan.AlertSenderReplaced"
    /// The error of AckAlert and SendTestAlert for a destination the sender does not follow.
    public static let unknownDestinationError = "io.peerscan.UnknownDestination"

    /// An alert as FollowAlerts offers it.
    public struct Alert: Codable, Sendable, Hashable {
        /// A lowercase UUID: the receiver's idempotency key.
        public var id: String
        /// ``AlertEvent``'s raw value.
        public var event: String
        /// RFC 3339 UTC with milliseconds.
        public var created: String
        /// The device's id, `nil` for the scanner's faults and a test.
        public var device: String?
        public var title: String
        public var message: String
        /// ``AlertPriority``'s raw value.
        public var priority: String
        public var tags: [String]
        /// The device's path on the page.
        public var link: String?
        /// What a template may use.
        public var fields: [String: String]

        /// An alert (a sender's tests build them).
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

        /// The wire form of `alert`.
        public init(_ alert: PeerScanModel.Alert) {
            id = alert.id.uuidString.lowercased()
            event = alert.event.rawValue
            created = PeerScanWire.millisecondTimestamp(alert.created)
            device = alert.device?.description
            title = alert.title
            message = alert.message
            priority = alert.priority.rawValue
            tags = alert.tags
            link = alert.link
            fields = alert.fields
        }
    }

    /// `FollowAlerts(destinations:)` parameters.
    public struct FollowAlertsParameters: Codable, Sendable, Hashable {
        /// The sender's destinations, by name (without secrets).
        public var destinations: [String]

        /// Creates parameters.
        public init(destinations: [String]) { self.destinations = destinations }
    }

    /// A FollowAlerts reply: one alert for one destination.
    public struct FollowAlertsReply: Codable, Sendable, Hashable {
        public var destination: String
        public var alert: Alert

        /// Creates a reply.
        public init(destination: String, alert: Alert) {
            self.destination = destination
            self.alert = alert
        }
    }

    /// `AckAlert(id:destination:outcome:answer:)` parameters.
    public struct AckAlertParameters: Codable, Sendable, Hashable {
        public var id: String
        public var destination: String
        /// `sent` or `rejected`.
        public var outcome: String
        /// The receiver's status line and the start of its body (≤ 512 bytes).
        public var answer: String?

        /// Creates parameters.
        public init(id: String, destination: String, outcome: String, answer: String? = nil) {
            self.id = id
            self.destination = destination
            self.outcome = outcome
            self.answer = answer
        }
    }

    /// The reply of AckAlert, SetAlertRule: no fields.
    public struct EmptyReply: Codable, Sendable, Hashable {
        /// Creates a reply.
        public init() {}
    }

    /// One destination's answer to a test alert.
    public struct AlertTestResult: Codable, Sendable, Hashable {
        public var destination: String
        /// `sent`, `rejected`, or `timeout` when no answer came in time.
        public var outcome: String
        public var answer: String?

        /// Creates a result.
        public init(destination: String, outcome: String, answer: String? = nil) {
            self.destination = destination
            self.outcome = outcome
            self.answer = answer
        }
    }

    /// `SendTestAlert(destination:timeout:)` parameters.
    public struct SendTestAlertParameters: Codable, Sendable, Hashable {
        /// One destination; `nil` for every one the sender follows.
        public var destination: String?
        /// Seconds to wait for the answers (default 30).
        public var timeout: Int?

        /// Creates parameters.
        public init(destination: String? = nil, timeout: Int? = nil) {
            self.destination = destination
            self.timeout = timeout
        }
    }

    /// The reply of SendTestAlert.
    public struct SendTestAlertReply: Codable, Sendable, Hashable {
        public var results: [AlertTestResult]

        /// Creates a reply.
        public init(results: [AlertTestResult]) { self.results = results }
    }

    /// A person's alert rule.
    public struct AlertRule: Codable, Sendable, Hashable {
        /// The device's id; `nil` for the default rule.
        public var device: String?
        /// ``AlertEvent`` raw values.
        public var events: [String]

        /// The wire form of `rule`.
        public init(_ rule: PeerScanModel.AlertRule) {
            device = rule.device?.description
            events = rule.events.map(\.rawValue)
        }
    }

    /// `SetAlertRule(device:events:)` parameters.
    public struct SetAlertRuleParameters: Codable, Sendable, Hashable {
        public var device: String?
        /// `nil` removes the rule.
        public var events: [String]?

        /// Creates parameters.
        public init(device: String?, events: [String]?) {
            self.device = device
            self.events = events
        }
    }

    /// The reply of ListAlertRules.
    public struct ListAlertRulesReply: Codable, Sendable, Hashable {
        public var rules: [AlertRule]

        /// Creates a reply.
        public init(rules: [AlertRule]) { self.rules = rules }
    }
}

extension PeerScanWire {
    /// `date` as RFC 3339 UTC text with milliseconds, rounded to the nearest (Foundation's fractional seconds
    /// truncate a binary fraction: 0.207 s came out as `.206`).
    public static func millisecondTimestamp(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let (seconds, fraction) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        let whole = fraction < 0 ? seconds - 1 : seconds
        let text = Date(timeIntervalSince1970: Double(whole)).formatted(.iso8601)  // 2027-01-15T08:00:00Z
        let rest = fraction < 0 ? fraction + 1000 : fraction
        return text.dropLast() + "." + String(String(rest + 1000).dropFirst()) + "Z"
    }
}

extension PeerScanWire.ErrorReply {
    /// `NoAlertSender`: SendTestAlert while no FollowAlerts call is open.
    public static func noAlertSender(reason: String) -> PeerScanWire.ErrorReply {
        PeerScanWire.ErrorReply(name: PeerScanWire.noAlertSenderError, parameters: ["reason": reason])
    }

    /// `AlertSenderReplaced`: another FollowAlerts call started.
    public static let alertSenderReplaced = PeerScanWire.ErrorReply(
        name: PeerScanWire.alertSenderReplacedError,
        parameters: [:]
    )

    /// `UnknownDestination`: the sender does not follow this destination.
    public static func unknownDestination(_ destination: String) -> PeerScanWire.ErrorReply {
        PeerScanWire.ErrorReply(name: PeerScanWire.unknownDestinationError, parameters: ["destination": destination])
    }
}
