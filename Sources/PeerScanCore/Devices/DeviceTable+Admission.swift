// Which Bluetooth devices the table keeps, and how many it lists: anything in radio range can advertise, so an
// advertiser is only listed while it is heard until it proved to be a device (admission), a device nobody touched is
// forgotten after `--bluetooth-forget-after`, and at most `--bluetooth-max-devices` are listed (the cap). See
// docs/scanning.md, "Bluetooth admission".

import PeerScanModel

extension DeviceTable {
    /// Whether the device of `identity` is kept (in the registry and on MQTT, with `new device` and presence lines),
    /// not only listed while heard:
    /// - an IRK resolved it, or
    /// - it is an identity address (public, random static) and: it was kept before (the registry knows its key, or
    ///   it was admitted earlier in this run), a person touched it (``isTouched(_:)``), or it has been heard for
    ///   ``BluetoothSettings/admitAfter`` without a silence of ``BluetoothSettings/away``.
    ///
    /// A private address no IRK resolves is never kept.
    /// - Complexity: O(k) for k keys of its device.
    func isAdmitted(_ identity: BluetoothIdentity, now: Duration) -> Bool {
        guard case .address(let address) = identity else {
            if case .resolved = identity { return true }
            return false
        }
        if identities.id(for: .bluetooth(address)) != nil || isTouched(identity) { return true }
        guard let since = bluetooth.heardSince[identity], let last = bluetooth.lastHeard(of: identity, now: now) else {
            return false
        }
        return now < last + bluetooth.settings.away && now >= since + bluetooth.settings.admitAfter
    }

    /// Whether a person touched the device of `identity`, or it is paired with the host: resolved by an IRK; named,
    /// noted, marked important, given an IRK or merged with another device; or paired or bonded in BlueZ. Such a
    /// device is kept as long as any (`--forget-after`) and never evicted by the cap.
    /// - Complexity: O(k) for k keys of its device.
    func isTouched(_ identity: BluetoothIdentity) -> Bool {
        switch identity {
        case .ephemeral: return false
        case .resolved: return true
        case .address(let address):
            let isPaired = (bluetooth.addressesByIdentity[identity] ?? []).contains {
                bluetooth.byAddress[$0]?.advertisement.isTemporary == false
            }
            if isPaired { return true }
            guard let id = identities.id(for: .bluetooth(address)) ?? published.id(of: .bluetooth(identity)) else {
                return false
            }
            return !labels.label(of: id).isEmpty || bluetooth.key(of: id) != nil
                || identities.keyCount(of: id) > 1
        }
    }

    /// How long after its last advertisement the kept device of `identity` is forgotten: `--forget-after` if a person
    /// touched it, else the earlier of that and ``BluetoothSettings/forgetAfter``; never before it turns offline.
    func bluetoothForgetAfter(_ identity: BluetoothIdentity) -> Duration {
        let settings = bluetooth.settings
        let forgetAfter = isTouched(identity) ? presence.forgetAfter : min(presence.forgetAfter, settings.forgetAfter)
        return max(settings.away, forgetAfter)
    }

    /// Makes room for `identity` if it is new and the table lists ``BluetoothSettings/maxDevices`` identities. Those
    /// not kept go first — the absent longest, then those heard for the shortest time — so that a flood of new
    /// addresses takes the place of its own newest; only when every device listed is kept do the kept ones nobody
    /// touched go (forgotten, as at `--bluetooth-forget-after`), the absent longest first, then those heard for the
    /// shortest time: what has proved to be a device is never pushed out by what has not. One pass makes room for
    /// ``evictionBatch`` at once, so that a flood pays for it once per that many new addresses.
    ///
    /// - Returns: Whether `identity` may be held (`false`: every device listed is one a person touched).
    /// - Complexity: O(1) if `identity` is held already or the table is not full; O(b log b) otherwise, for b
    ///   identities: amortized O(log b) per new identity.
    mutating func makeRoom(for identity: BluetoothIdentity, now: Duration) -> Bool {
        guard bluetooth.addressesByIdentity[identity] == nil,
            bluetooth.addressesByIdentity.count >= bluetooth.settings.maxDevices
        else { return true }
        bluetooth.noteFull()
        let victims = evictionCandidates(now: now)
        guard !victims.isEmpty else { return false }
        for victim in victims {
            bluetooth.remove(victim)
            withdraw(.bluetooth(victim), forgets: true)
        }
        bluetooth.noteFull()  // still: the new ones take their places
        return true
    }

    /// How many identities one pass of the cap takes out: a sixteenth of the cap, at least one.
    var evictionBatch: Int { max(1, bluetooth.settings.maxDevices / 16) }

    /// The identities the cap takes out first (see ``makeRoom(for:now:)``), at most ``evictionBatch``; none a
    /// person's.
    private func evictionCandidates(now: Duration) -> [BluetoothIdentity] {
        var orders: [(order: EvictionOrder, identity: BluetoothIdentity)] = []
        orders.reserveCapacity(bluetooth.addressesByIdentity.count)
        for identity in bluetooth.addressesByIdentity.keys where !isTouched(identity) {
            guard let last = bluetooth.lastHeard(of: identity, now: now) else { continue }
            let isAbsent = now >= last + bluetooth.settings.away
            // Not kept before kept; within each, the absent (the longest absent first) before the heard (the
            // shortest heard first).
            let order = EvictionOrder(
                rank: (isAdmitted(identity, now: now) ? 2 : 0) + (isAbsent ? 0 : 1),
                time: isAbsent ? last : .zero - (bluetooth.heardSince[identity] ?? last),
                name: identity.name
            )
            orders.append((order, identity))
        }
        return orders.sorted { $0.order < $1.order }.prefix(evictionBatch).map(\.identity)
    }

    /// The number of Bluetooth identities listed, and whether the cap was reached (for the host item's `limits`).
    var bluetoothFill: (count: Int, isFull: Bool) { (bluetooth.addressesByIdentity.count, bluetooth.isFull) }
}

/// Which identity the cap takes first: the least rank (0 absent, 1 heard, not kept; 2 absent, 3 heard, kept), then the least time
/// (when last heard for the absent; the negated start of the run for the heard, so the shortest heard first), then
/// the name (so that ties go the same way in every run).
private struct EvictionOrder: Comparable {
    var rank: Int
    var time: Duration
    var name: String

    static func < (lhs: Self, rhs: Self) -> Bool { (lhs.rank, lhs.time, lhs.name) < (rhs.rank, rhs.time, rhs.name) }
}

extension BluetoothIdentity {
    /// The address or device id it stands for, as text (to order ties the same way in every run).
    fileprivate var name: String {
        switch self {
        case .address(let address), .ephemeral(let address): address
        case .resolved(let id): id.description
        }
    }
}
