// The device table's neighbour address book: what the kernel's neighbour table taught about the addresses on the
// directly connected subnets — which MAC address each answers with (and on which interface), when each MAC address last
// answered, which addresses failed, and which entries are unconfirmed. A value the table owns; the table decides which
// devices these make (DeviceTable+Publishing.swift).

import Discovery
import PeerScanModel

/// Which MAC address each address answers with, and whether the MAC addresses answer.
///
/// - An entry teaches an address's MAC address only once it answers (``isAnswering(_:now:)``): an entry the kernel has
///   not verified lately is not taken as a device.
/// - An address belongs to the MAC address it last answered with: when another one answers for it, it moves (a
///   ``Move``).
/// - An address stays its MAC address's while the host is silent, but leaves it when its entry failed and the MAC
///   address then answers on another address: the host dropped it.
///
/// Time is the caller's monotonic clock, passed to every call that needs it.
///
/// ## Performance
/// Lookups by address and by MAC address are O(1); what reads a MAC address's entries is O(a) for its a addresses.
struct NeighbourAddressBook: Sendable {
    /// An address that answers with another MAC address now.
    enum Move: Hashable, Sendable {
        /// The previous MAC address answered within ``DeviceTable/Presence/conflictWindow``: both claim the address
        /// (reported once per window and address).
        case conflict(address: String, macAddress: String, previousMACAddress: String)
        /// The previous MAC address had gone quiet: the address moved.
        case macChanged(address: String, macAddress: String, previousMACAddress: String)
    }

    /// What an observation changed, for the table to derive again.
    struct Change: Sendable, Equatable {
        /// The MAC addresses whose addresses or presence may have changed.
        var macAddresses: Set<String> = []
        /// The addresses that left their MAC address (their host dropped them): their mDNS hosts may have changed.
        var detachedAddresses: Set<String> = []
        /// The addresses that moved to another MAC address, in order.
        var moves: [Move] = []

        /// Adds what `other` changed.
        mutating func formUnion(_ other: Change) {
            macAddresses.formUnion(other.macAddresses)
            detachedAddresses.formUnion(other.detachedAddresses)
            moves += other.moves
        }
    }

    private let presence: DeviceTable.Presence
    /// The kernel's entries, by address.
    private var entries: [String: Neighbour] = [:]
    /// The MAC address each known address last answered with (and on which interface), and the reverse.
    private var macByAddress: [String: String] = [:]
    private var interfaceByAddress: [String: String] = [:]
    private var addressesByMAC: [String: Set<String>] = [:]
    /// When each MAC address last answered (the kernel's confirmation, or when it was seen answering).
    private var lastAnswerByMAC: [String: Duration] = [:]
    /// When the kernel's timer last ended a reachable entry of each MAC address (reachable to stale): presence counts
    /// from then too, but it is no answer (see ``noteStaleness(of:replacing:now:)``).
    private var reachableUntilByMAC: [String: Duration] = [:]
    /// When a conflict over each address was last reported.
    private var lastConflictReported: [String: Duration] = [:]
    /// The known addresses whose entry failed (or went), and since when: one that stays failed while its MAC address
    /// answers again on another address was dropped by its host, and leaves the MAC address.
    private var failedSince: [String: Duration] = [:]
    /// The known addresses whose entry left the reachable state (stale, or being verified), and since when (see
    /// ``isAnswering(_:now:)``).
    private var unconfirmedSince: [String: Duration] = [:]

    /// Creates an empty book.
    /// - Parameter presence: The windows that judge answers (``DeviceTable/Presence/offlineAfter``,
    ///   ``DeviceTable/Presence/staleGrace``, ``DeviceTable/Presence/conflictWindow``).
    init(presence: DeviceTable.Presence) {
        self.presence = presence
    }

    // MARK: Reading

    /// The addresses of the kernel's entries seen (answering or not).
    /// - Complexity: O(1)
    var entryAddresses: Dictionary<String, Neighbour>.Keys { entries.keys }

    /// The MAC address `address` last answered with, if it is known.
    /// - Complexity: O(1)
    func macAddress(of address: String) -> String? { macByAddress[address] }

    /// The interface `address` last answered on, if it is known.
    /// - Complexity: O(1)
    func interface(of address: String) -> String? { interfaceByAddress[address] }

    /// The addresses that answer with `mac`.
    /// - Complexity: O(1)
    func addresses(of mac: String) -> Set<String> { addressesByMAC[mac] ?? [] }

    /// When `mac` last answered, if it did.
    /// - Complexity: O(1)
    func lastAnswer(of mac: String) -> Duration? { lastAnswerByMAC[mac] }

    /// Whether the kernel's entry counts as the neighbour answering now: reachable or configured (permanent); stale or
    /// being verified (delay, probe) if the kernel confirmed it within ``DeviceTable/Presence/offlineAfter``, or if it
    /// left the reachable state less than ``DeviceTable/Presence/staleGrace`` ago. An entry unconfirmed since before
    /// the book knew it counts only by its confirmation.
    /// - Complexity: O(1)
    func isAnswering(_ neighbour: Neighbour, now: Duration) -> Bool {
        switch neighbour.state {
        case .reachable, .permanent:
            return neighbour.macAddress != nil
        case .stale, .delay, .probe:
            guard neighbour.macAddress != nil else { return false }
            guard let confirmed = neighbour.lastConfirmed else { return true }
            if now - confirmed < presence.offlineAfter { return true }
            return unconfirmedSince[neighbour.address].map { now - $0 < presence.staleGrace } ?? false
        case .incomplete, .failed:
            return false
        }
    }

    /// Whether one of `mac`'s entries answers now (``isAnswering(_:now:)``).
    /// - Complexity: O(a) for the a addresses of `mac`.
    func answers(mac: String, now: Duration) -> Bool {
        entries(of: mac).contains { isAnswering($0, now: now) }
    }

    /// Whether one of `mac`'s entries is reachable (or configured): the kernel heard from it lately.
    /// - Complexity: O(a) for the a addresses of `mac`.
    func isConfirmed(mac: String) -> Bool {
        entries(of: mac).contains { $0.state == .reachable || $0.state == .permanent }
    }

    /// Whether one of `mac`'s entries failed (or went, or is being resolved anew): the kernel asked and got no answer.
    /// - Complexity: O(a) for the a addresses of `mac`.
    func hasFailedEntry(mac: String) -> Bool {
        addresses(of: mac).contains { address in
            guard let neighbour = entries[address] else { return true }
            return neighbour.state == .failed || neighbour.state == .incomplete
        }
    }

    /// The later of `last` and the moment the kernel's timer last ended a reachable entry of any of `macs`: how long
    /// a device stays online counts from then.
    /// - Complexity: O(m) for m MAC addresses.
    func presenceStart(after last: Duration, macs: some Sequence<String>) -> Duration {
        macs.reduce(last) { max($0, reachableUntilByMAC[$1] ?? .zero) }
    }

    /// What answers for `macs` now: `arp` if one of their IPv4 entries does, `ndp` if an IPv6 one does.
    /// - Complexity: O(a) for the a addresses of `macs`.
    func answeringMeans(of macs: Set<String>, now: Duration) -> [String] {
        var arp = false
        var ndp = false
        for mac in macs {
            for neighbour in entries(of: mac) where isAnswering(neighbour, now: now) {
                if neighbour.address.contains(":") { ndp = true } else { arp = true }
            }
        }
        return [(arp, "arp"), (ndp, "ndp")].filter(\.0).map(\.1)
    }

    /// The means the kernel asks `addresses` by, for those it resolved: `arp` for IPv4, `ndp` for IPv6.
    /// - Complexity: O(a) for a addresses.
    func resolvingMeans(of addresses: some Sequence<String>) -> [String] {
        var arp = false
        var ndp = false
        for address in addresses where macByAddress[address] != nil {
            if address.contains(":") { ndp = true } else { arp = true }
        }
        return [(arp, "arp"), (ndp, "ndp")].filter(\.0).map(\.1)
    }

    /// `mac`'s entries (those of its addresses the kernel holds with `mac`).
    private func entries(of mac: String) -> [Neighbour] {
        addresses(of: mac).compactMap { address in entries[address].flatMap { $0.macAddress == mac ? $0 : nil } }
    }

    // MARK: Observing

    /// A neighbour entry added or changed: its address answers with its MAC address if it answers (moving from another
    /// MAC address, and detaching its MAC address's addresses that failed before); else a failure is noted.
    /// - Complexity: O(a) for the a addresses of its MAC address.
    mutating func update(_ neighbour: Neighbour, now: Duration) -> Change {
        let address = neighbour.address
        noteStaleness(of: neighbour, replacing: entries[address], now: now)
        entries[address] = neighbour
        var change = Change()
        if let mac = neighbour.macAddress, isAnswering(neighbour, now: now) {
            lastAnswerByMAC[mac] = max(lastAnswerByMAC[mac] ?? .zero, neighbour.lastConfirmed ?? now)
            failedSince[address] = nil
            change.detachedAddresses = detachDroppedAddresses(of: mac, answeredAt: neighbour.lastConfirmed ?? now)
            if let previous = macByAddress[address], previous != mac {
                if let move = move(of: address, to: mac, from: previous, now: now) { change.moves.append(move) }
                change.macAddresses.insert(previous)
                addressesByMAC[previous]?.remove(address)
            }
            macByAddress[address] = mac
            interfaceByAddress[address] = neighbour.interface
            addressesByMAC[mac, default: []].insert(address)
            change.macAddresses.insert(mac)
        } else if let mac = macByAddress[address] {
            if let confirmed = neighbour.lastConfirmed, neighbour.macAddress == nil || neighbour.macAddress == mac {
                lastAnswerByMAC[mac] = max(lastAnswerByMAC[mac] ?? .zero, confirmed)
            }
            if neighbour.state == .failed || neighbour.state == .incomplete {
                noteFailure(of: address, mac: mac, now: now)
            }
            change.macAddresses.insert(mac)
        }
        return change
    }

    /// A neighbour entry the kernel deleted: its address stays its MAC address's until that MAC address answers on
    /// another address and this one stays gone. The removal of an entry never seen changes nothing.
    /// - Complexity: O(a) for the a addresses of its MAC address.
    mutating func remove(_ neighbour: Neighbour, now: Duration) -> Change {
        guard entries.removeValue(forKey: neighbour.address) != nil else { return Change() }
        unconfirmedSince[neighbour.address] = nil
        guard let mac = macByAddress[neighbour.address] else { return Change() }
        noteFailure(of: neighbour.address, mac: mac, now: now)
        return Change(macAddresses: [mac])
    }

    /// The whole neighbour table: entries not in it were deleted.
    /// - Complexity: O(n) for n entries.
    mutating func replaceAll(with all: [Neighbour], now: Duration) -> Change {
        let current = Set(all.map(\.address))
        var change = Change()
        for (address, neighbour) in entries where !current.contains(address) {
            change.formUnion(remove(neighbour, now: now))
        }
        for neighbour in all { change.formUnion(update(neighbour, now: now)) }
        return change
    }

    /// Forgets `mac`: its addresses, its answers and its failures.
    /// - Complexity: O(a) for the a addresses of `mac`.
    mutating func forget(mac: String) {
        for address in addressesByMAC.removeValue(forKey: mac) ?? [] where macByAddress[address] == mac {
            macByAddress[address] = nil
            interfaceByAddress[address] = nil
            failedSince[address] = nil
            unconfirmedSince[address] = nil
        }
        lastAnswerByMAC[mac] = nil
        reachableUntilByMAC[mac] = nil
    }

    /// Forgets everything (scanning switched off).
    mutating func removeAll() {
        self = NeighbourAddressBook(presence: presence)
    }

    /// Notes when an entry left the reachable state for stale or a verification (the grace of
    /// ``isAnswering(_:now:)`` counts from then); forgets it once the entry is reachable, failed or gone.
    ///
    /// Presence counts from the moment an entry's reachable time ran out (reachable to stale: the kernel's timer, not
    /// a forced probe): the kernel held the host reachable until then without asking it (15–45 s), so a host that
    /// misses the verification that follows — a phone dozing in Wi-Fi power save — has `--offline-after` from then
    /// to answer the next rounds, rather than none at all once its last confirmation is older than the window. A
    /// host that left is still offline within what docs/scanning.md says: `--offline-after` after its last answer
    /// plus its reachable time without forced probes, or plus one probe interval with them (the timer fires only if
    /// it comes before the next forced probe). It is no answer: the address-conflict window reads answers only.
    private mutating func noteStaleness(of neighbour: Neighbour, replacing previous: Neighbour?, now: Duration) {
        guard [.stale, .delay, .probe].contains(neighbour.state) else {
            unconfirmedSince[neighbour.address] = nil
            return
        }
        guard unconfirmedSince[neighbour.address] == nil, let previous, previous.macAddress == neighbour.macAddress,
            previous.state == .reachable || previous.state == .permanent
        else { return }
        unconfirmedSince[neighbour.address] = now
        if neighbour.state == .stale && previous.state == .reachable, let mac = neighbour.macAddress {
            reachableUntilByMAC[mac] = now
        }
    }

    /// Notes that `address` stopped answering for `mac`: a candidate for ``detachDroppedAddresses(of:answeredAt:)`` if
    /// the MAC address still answers on another address; if it answers on none any more, its host went silent and
    /// none of its addresses was dropped.
    private mutating func noteFailure(of address: String, mac: String, now: Duration) {
        if answers(mac: mac, now: now) {
            failedSince[address] = failedSince[address] ?? now
        } else {
            for other in addressesByMAC[mac] ?? [] { failedSince[other] = nil }
        }
    }

    /// Detaches from `mac` the addresses that failed before it answered at `time` on another address: its host is
    /// there but no longer has them. (A host that went silent fails on every address and keeps them all.)
    /// - Returns: The addresses detached.
    private mutating func detachDroppedAddresses(of mac: String, answeredAt time: Duration) -> Set<String> {
        var detached: Set<String> = []
        for address in addressesByMAC[mac] ?? [] {
            guard let failed = failedSince[address], failed < time else { continue }
            failedSince[address] = nil
            addressesByMAC[mac]?.remove(address)
            macByAddress[address] = nil
            interfaceByAddress[address] = nil
            detached.insert(address)
        }
        return detached
    }

    /// The move of `address` from `previous` to `mac`: a conflict if `previous` answered within the conflict window
    /// (`nil` if one was reported for the address within it), else a change of MAC address.
    private mutating func move(of address: String, to mac: String, from previous: String, now: Duration) -> Move? {
        let previousAnswered = lastAnswerByMAC[previous].map { now - $0 < presence.conflictWindow } ?? false
        guard previousAnswered else {
            return .macChanged(address: address, macAddress: mac, previousMACAddress: previous)
        }
        if let reported = lastConflictReported[address], now - reported < presence.conflictWindow { return nil }
        lastConflictReported[address] = now
        return .conflict(address: address, macAddress: mac, previousMACAddress: previous)
    }
}
