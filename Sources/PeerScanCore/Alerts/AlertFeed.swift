import Foundation
import PeerScanModel

/// An alert the policy decided, and when the outbox may offer it.
public struct DecidedAlert: Sendable, Equatable {
    /// The alert; its `created` is when it was decided.
    public var alert: Alert
    /// The end of the quiet hours it was decided in: the outbox keeps it and offers it from then on; `nil` for at
    /// once.
    public var notBefore: Date?

    /// Creates a decided alert.
    public init(_ alert: Alert, notBefore: Date? = nil) {
        self.alert = alert
        self.notBefore = notBefore
    }
}

/// A sender's answer for one alert and one destination (io.peerscan's AckAlert `outcome`).
public enum AlertOutcome: String, Sendable, CaseIterable {
    /// The receiver accepted it.
    case sent
    /// The receiver refused it for good.
    case rejected
}

/// What the sender following the outbox gets after the alerts pending when it started.
public enum AlertFeedEvent: Sendable, Equatable {
    /// A new alert for a destination it follows.
    case alert(destination: String, Alert)
    /// Another sender started following: this one ends.
    case replaced
}

/// A destination's answer to a test alert.
public struct AlertTestAnswer: Sendable, Equatable {
    /// The destination.
    public var destination: String
    /// Its outcome; `nil` when it did not answer in time.
    public var outcome: AlertOutcome?
    /// The receiver's answer.
    public var answer: String?

    /// Creates an answer.
    public init(destination: String, outcome: AlertOutcome?, answer: String?) {
        self.destination = destination
        self.outcome = outcome
        self.answer = answer
    }
}

/// A sender following the outbox: the alerts pending when it started, those written after, and its token.
public struct AlertFollowing: Sendable {
    /// Every alert pending for one of its destinations, oldest first.
    public var pending: [(destination: String, alert: Alert)]
    /// The alerts written from then on; ends with ``AlertFeedEvent/replaced`` when another sender starts.
    public var updates: AsyncStream<AlertFeedEvent>
    /// What ends this following (and no later one).
    public var token: Int

    /// Creates a following.
    public init(pending: [(destination: String, alert: Alert)], updates: AsyncStream<AlertFeedEvent>, token: Int) {
        self.pending = pending
        self.updates = updates
        self.token = token
    }
}
