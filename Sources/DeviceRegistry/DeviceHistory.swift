import Foundation
import PeerScanCore
import PeerScanModel

/// When something was first and last seen.
public struct SeenSpan: Sendable, Hashable {
    /// When it was first seen.
    public var first: Date
    /// When it was last seen.
    public var last: Date

    /// A span that starts and ends at `date`.
    public init(at date: Date) {
        first = date
        last = date
    }

    /// A span from `first` to `last`.
    public init(first: Date, last: Date) {
        self.first = first
        self.last = last
    }

    /// Extends the span to `date`.
    mutating func extend(to date: Date) {
        first = min(first, date)
        last = max(last, date)
    }

    /// The union of two spans.
    func union(_ other: SeenSpan) -> SeenSpan {
        SeenSpan(first: min(first, other.first), last: max(last, other.last))
    }
}

/// What the registry remembers of one device.
public struct DeviceHistory: Sendable, Hashable {
    /// The device's identifier.
    public var id: DeviceID
    /// The display name (or host name) last seen.
    public var name: String?
    /// The vendor last seen.
    public var vendor: String?
    /// When the device was first and last seen answering.
    public var seen: SeenSpan
    /// Every host name and MAC address it was seen with, and when.
    public var keys: [IdentityKey: SeenSpan]
    /// The keys that identify it (see ``DeviceIdentities``): each is bound to this device only.
    public var boundKeys: Set<IdentityKey>
    /// Every address it had.
    public var addresses: [String: SeenSpan]
    /// Its presence transitions, oldest first, within ``PresenceTransition/retention``.
    public var transitions: [PresenceTransition] = []
    /// What a person said about it.
    public var label: DeviceLabel
    /// The keys a person split off it (``DeviceIdentities/split(_:from:)``): kept apart from it.
    public var apartKeys: Set<IdentityKey> = []

    /// Creates a history.
    public init(
        id: DeviceID,
        name: String? = nil,
        vendor: String? = nil,
        seen: SeenSpan,
        keys: [IdentityKey: SeenSpan] = [:],
        boundKeys: Set<IdentityKey> = [],
        addresses: [String: SeenSpan] = [:],
        label: DeviceLabel = .none
    ) {
        self.label = label
        self.boundKeys = boundKeys
        self.id = id
        self.name = name
        self.vendor = vendor
        self.seen = seen
        self.keys = keys
        self.addresses = addresses
    }

    /// Records that the device is seen as `device` at `date`: its name (the one found: not a person's label, which
    /// ``label`` keeps) and vendor; and, if it is `online`, that it and its keys and addresses were seen then (an
    /// offline device's new keys and addresses are noted, not as seen).
    mutating func note(_ device: Device, at date: Date, online: Bool) {
        let found = device.assignedName == nil ? device.displayName : nil
        name = found ?? (device.assignedName == nil || name == nil ? device.hostName : nil) ?? name
        vendor = device.vendor ?? vendor
        var keysNow = device.macAddresses.map(IdentityKey.macAddress)
        if let hostName = device.hostName { keysNow.append(.hostName(DeviceID.canonicalHostName(hostName))) }
        if online { seen.extend(to: date) }
        for key in keysNow { Self.note(key, in: &keys, at: date, online: online) }
        for address in device.addresses { Self.note(address, in: &addresses, at: date, online: online) }
    }

    /// Seen at `date` if `online`; else only known from then, if it was not already.
    private static func note<Value: Hashable>(
        _ value: Value,
        in spans: inout [Value: SeenSpan],
        at date: Date,
        online: Bool
    ) {
        if online {
            spans[value, default: SeenSpan(at: date)].extend(to: date)
        } else if spans[value] == nil {
            spans[value] = SeenSpan(at: date)
        }
    }

    /// Notes a transition if it changes the presence last noted (a restart or a resync re-reports a device as it
    /// was); drops those past ``PresenceTransition/retention``.
    /// - Returns: Whether it was noted.
    @discardableResult
    mutating func note(_ transition: PresenceTransition) -> Bool {
        guard transitions.last?.online != transition.online else { return false }
        transitions.append(transition)
        dropTransitionsPastRetention()
        return true
    }

    /// Drops the transitions older than ``PresenceTransition/retention`` before the latest one, and the oldest
    /// beyond its count.
    private mutating func dropTransitionsPastRetention() {
        guard let latest = transitions.last else { return }
        let horizon = latest.at - PresenceTransition.retention.age
        let expired = transitions.prefix { $0.at < horizon }.count
        let excess = max(transitions.count - expired - PresenceTransition.retention.count, 0)
        if expired + excess > 0 { transitions.removeFirst(expired + excess) }
    }

    /// Takes in another device's history (the two turned out to be one): its transitions join these, within the
    /// one ``PresenceTransition/retention`` every device has.
    mutating func absorb(_ other: DeviceHistory) {
        seen = seen.union(other.seen)
        if name == nil { name = other.name }
        if vendor == nil { vendor = other.vendor }
        keys.merge(other.keys) { $0.union($1) }
        boundKeys.formUnion(other.boundKeys)
        addresses.merge(other.addresses) { $0.union($1) }
        transitions = (transitions + other.transitions).sorted { $0.at < $1.at }
        dropTransitionsPastRetention()
        apartKeys = apartKeys.union(other.apartKeys).subtracting(boundKeys)
    }
}
