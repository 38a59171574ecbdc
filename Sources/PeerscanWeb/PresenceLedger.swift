import PeerScanClient
import PeerScanModel

/// What peerscan-web saw of the devices' presence since it started: the transitions (a device's `online` flipping),
/// by direction and reason, and when each device was last seen online — fed every update of its Monitor follower.
/// A pure value: updates in, counts out.
///
/// A reason is the first word of the device's `presenceReason` (`answered`, `unanswered`, `withdrawn`), `other` for
/// none or another: a bounded set, so the counter has at most eight series.
///
/// ## Performance
/// A changeset costs O(updates in it); a resync (a snapshot replacing the local one) O(devices).
public struct PresenceLedger: Sendable {
    /// Which way a device's presence went.
    public enum Direction: String, CaseIterable, Sendable {
        case online, offline
    }

    /// Why, as the first word of `presenceReason`.
    public enum Reason: String, CaseIterable, Sendable {
        case answered, unanswered, withdrawn, other

        init(_ reason: PresenceReason?) {
            switch reason?.kind {
            case .answered: self = .answered
            case .unanswered: self = .unanswered
            case .withdrawn: self = .withdrawn
            case nil: self = .other
            }
        }
    }

    /// The transitions seen, by direction and reason (absent: none).
    public private(set) var transitions: [Direction: [Reason: UInt64]] = [:]
    /// For each device in the snapshot that was online and went offline while peerscan-web watched: when it was
    /// last seen online (the update that took it offline), in seconds since the Unix epoch.
    public private(set) var lastOnline: [DeviceID: Double] = [:]

    /// Nothing seen yet.
    public init() {}

    /// The transitions of one direction and reason.
    public func count(_ direction: Direction, _ reason: Reason) -> UInt64 { transitions[direction]?[reason] ?? 0 }

    /// Takes one update of the follower into account.
    ///
    /// - Parameters:
    ///   - update: What the Monitor reply did to the local snapshot.
    ///   - now: When it arrived, in seconds since the Unix epoch.
    public mutating func take(_ update: MonitorSession.Update, at now: Double) {
        switch update {
        case .initial, .outOfSync: return
        case .changed(let old, let changes, _):
            for payload in changes.itemUpdates {
                guard let device = payload.item.device else { continue }
                take(old: old.item(withIdentifier: device.id)?.device, new: device, at: now)
            }
            for delete in changes.itemDeletes { lastOnline[delete.id] = nil }
        case .resynced(_, let old, let new):
            // No changesets to see: what flipped between the two snapshots counts once.
            var kept: [DeviceID: Double] = [:]
            for item in new.items {
                guard let device = item.device else { continue }
                take(old: old.item(withIdentifier: device.id)?.device, new: device, at: now)
                kept[device.id] = lastOnline[device.id]
            }
            lastOnline = kept
        }
    }

    private mutating func take(old: Device?, new: Device, at now: Double) {
        guard let old, old.online != new.online else { return }
        let direction: Direction = new.online ? .online : .offline
        transitions[direction, default: [:]][Reason(new.presenceReason), default: 0] += 1
        if !new.online { lastOnline[new.id] = now }
    }
}
