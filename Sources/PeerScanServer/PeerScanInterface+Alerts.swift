import Foundation
import Logging
import PeerScanCore
import PeerScanModel
import Varlink
import VarlinkServer

// The alerts' methods (docs/alerts.md): FollowAlerts and AckAlert (the sender, peerscan-alerts), SendTestAlert,
// SetAlertRule and ListAlertRules (peerscanctl notify). All five for root and the control group only: the alerts
// name devices and where they are sent.

/// The interface's access to the alerts' outbox and rules (peerscand makes it over the registry's outbox).
public struct AlertAccess: Sendable {
    /// Starts following for destinations (ending the follower before).
    public var follow: @Sendable ([String]) async -> AlertFollowing
    /// Ends the following of a token, if it is still the current one.
    public var stopFollowing: @Sendable (Int) async -> Void
    /// The destinations the current follower named; `nil` while none follows.
    public var followedDestinations: @Sendable () async -> Set<String>?
    /// Records the sender's answer for an alert and a destination.
    public var acknowledge: @Sendable (UUID, String, AlertOutcome, String?) async -> Void
    /// Writes a test alert for destinations and waits up to a time for their answers.
    public var sendTest: @Sendable ([String], Duration) async -> [AlertTestAnswer]
    /// The person's rules.
    public var rules: @Sendable () async -> [AlertRule]
    /// Sets (or, with `nil` events, removes) a rule.
    public var setRule: @Sendable (DeviceID?, [AlertEvent]?) async -> Void

    /// Creates the access.
    public init(
        follow: @escaping @Sendable ([String]) async -> AlertFollowing,
        stopFollowing: @escaping @Sendable (Int) async -> Void,
        followedDestinations: @escaping @Sendable () async -> Set<String>?,
        acknowledge: @escaping @Sendable (UUID, String, AlertOutcome, String?) async -> Void,
        sendTest: @escaping @Sendable ([String], Duration) async -> [AlertTestAnswer],
        rules: @escaping @Sendable () async -> [AlertRule],
        setRule: @escaping @Sendable (DeviceID?, [AlertEvent]?) async -> Void
    ) {
        self.follow = follow
        self.stopFollowing = stopFollowing
        self.followedDestinations = followedDestinations
        self.acknowledge = acknowledge
        self.sendTest = sendTest
        self.rules = rules
        self.setRule = setRule
    }
}

extension PeerScanInterface {
    /// The longest SendTestAlert waits, whatever it asks.
    static let longestTestTimeout = 300

    /// The longest answer kept, in bytes of UTF-8.
    static let longestAnswer = 512

    /// `answer` cut to ``longestAnswer`` bytes, at a character's boundary.
    static func answerPrefix(_ answer: String) -> String {
        var bytes = 0
        return String(
            answer.prefix { character in
                bytes += character.utf8.count
                return bytes <= longestAnswer
            }
        )
    }

    /// FollowAlerts, AckAlert, SendTestAlert, SetAlertRule and ListAlertRules.
    func handleAlerts(_ call: VarlinkCall, context: VarlinkCallContext) async throws {
        try authorize(call.methodName, "alerts", context: context)
        guard let alerts else {
            throw VarlinkError(PeerScanWire.ErrorReply.noAlertSender(reason: "peerscand keeps no alerts"))
        }
        switch call.methodName {
        case "FollowAlerts":
            let destinations = try call.parameters(as: PeerScanWire.FollowAlertsParameters.self).destinations
            try await follow(destinations, alerts: alerts, context: context)
        case "AckAlert":
            let parameters = try call.parameters(as: PeerScanWire.AckAlertParameters.self)
            guard let id = UUID(uuidString: parameters.id) else { throw VarlinkError.invalidParameter("id") }
            guard let outcome = AlertOutcome(rawValue: parameters.outcome) else {
                throw VarlinkError.invalidParameter("outcome")
            }
            guard await alerts.followedDestinations()?.contains(parameters.destination) == true else {
                throw VarlinkError(PeerScanWire.ErrorReply.unknownDestination(parameters.destination))
            }
            await alerts.acknowledge(
                id,
                parameters.destination,
                outcome,
                parameters.answer.map(Self.answerPrefix)
            )
            try await context.reply(PeerScanWire.EmptyReply())
        case "SendTestAlert":
            let parameters = try call.parameters(as: PeerScanWire.SendTestAlertParameters.self)
            guard let followed = await alerts.followedDestinations() else {
                throw VarlinkError(PeerScanWire.ErrorReply.noAlertSender(reason: "no sender follows the alerts"))
            }
            if let destination = parameters.destination, !followed.contains(destination) {
                throw VarlinkError(PeerScanWire.ErrorReply.unknownDestination(destination))
            }
            let destinations = parameters.destination.map { [$0] } ?? followed.sorted()
            let timeout = min(max(parameters.timeout ?? 30, 0), Self.longestTestTimeout)
            let answers = await alerts.sendTest(destinations, .seconds(timeout))
            let results = answers.map {
                PeerScanWire.AlertTestResult(
                    destination: $0.destination,
                    outcome: $0.outcome?.rawValue ?? "timeout",
                    answer: $0.answer
                )
            }
            try await context.reply(PeerScanWire.SendTestAlertReply(results: results))
        case "SetAlertRule":
            let parameters = try call.parameters(as: PeerScanWire.SetAlertRuleParameters.self)
            var device: DeviceID?
            if let text = parameters.device {
                guard let id = DeviceID(text: text) else { throw VarlinkError.invalidParameter("device") }
                device = id
            }
            let events = try parameters.events.map { texts in
                try texts.map { text in
                    guard let event = AlertEvent(rawValue: text), event != .test else {
                        throw VarlinkError.invalidParameter("events")
                    }
                    return event
                }
            }
            await alerts.setRule(device, events)
            try await context.reply(PeerScanWire.EmptyReply())
        default:
            let rules = await alerts.rules().map(PeerScanWire.AlertRule.init)
            try await context.reply(PeerScanWire.ListAlertRulesReply(rules: rules))
        }
    }

    /// FollowAlerts: the pending alerts, then each new one, until the client goes or another sender replaces it.
    private func follow(_ destinations: [String], alerts: AlertAccess, context: VarlinkCallContext) async throws {
        guard context.call.more else { throw VarlinkError.invalidParameter("more") }
        let following = await alerts.follow(destinations)
        do {
            for (destination, alert) in following.pending {
                try await context.reply(
                    PeerScanWire.FollowAlertsReply(destination: destination, alert: PeerScanWire.Alert(alert)),
                    continues: true
                )
            }
            for await event in following.updates {
                switch event {
                case .alert(let destination, let alert):
                    try await context.reply(
                        PeerScanWire.FollowAlertsReply(destination: destination, alert: PeerScanWire.Alert(alert)),
                        continues: true
                    )
                case .replaced:
                    throw VarlinkError(PeerScanWire.ErrorReply.alertSenderReplaced)
                }
            }
        } catch {
            await alerts.stopFollowing(following.token)
            throw error
        }
        await alerts.stopFollowing(following.token)  // the client went (the call was cancelled), or shutdown
    }
}
