/// What the sender holds of each destination's alerts, so that an alert peerscand offers again is not sent again.
///
/// peerscand offers every alert not yet acknowledged each time `FollowAlerts` is called: after a reconnect it offers
/// the ones still queued here, and the ones delivered whose acknowledgement did not reach it. The first kind is queued
/// already; the second was delivered and its acknowledgement is retried: neither is sent twice. A value type (the
/// sender keeps it under a lock); an alert leaves it when its acknowledgement is through.
public struct DeliveryLedger: Sendable, Equatable {
    /// Where an alert is.
    public enum State: Sendable, Equatable {
        /// Waiting in its destination's queue, or being delivered.
        case queued
        /// Delivered (or rejected for good); its acknowledgement not yet through.
        case delivered
    }

    private var states: [Key: State] = [:]

    struct Key: Hashable, Sendable {
        var destination: String
        var id: String
    }

    /// An empty ledger.
    public init() {}

    /// Takes an offered alert: `true` if it is new here and must be queued, `false` if it is queued or delivered
    /// already.
    ///
    /// - Complexity: O(1).
    public mutating func offer(id: String, destination: String) -> Bool {
        let key = Key(destination: destination, id: id)
        guard states[key] == nil else { return false }
        states[key] = .queued
        return true
    }

    /// Records a delivery (sent or rejected): its acknowledgement is pending.
    public mutating func delivered(id: String, destination: String) {
        states[Key(destination: destination, id: id)] = .delivered
    }

    /// Forgets an alert whose acknowledgement peerscand took.
    public mutating func acknowledged(id: String, destination: String) {
        states[Key(destination: destination, id: id)] = nil
    }

    /// Where an alert is, if it is here.
    public func state(id: String, destination: String) -> State? { states[Key(destination: destination, id: id)] }

    /// How many alerts are held.
    public var count: Int { states.count }
}
