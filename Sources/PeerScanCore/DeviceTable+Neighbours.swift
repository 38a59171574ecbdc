// The device table's observations: the kernel's entries, the addresses that move between MAC addresses, address
// conflicts, and hosts' answers to questions.

import Discovery
import PeerScanModel

extension DeviceTable {
    /// Takes what a source observed. Neighbours on interfaces not in `interfaces` (the scanned ones) are left out;
    /// the removal of one never seen is ignored.
    /// - Complexity: that of the observation's own input below.
    public mutating func observe(_ observation: NeighbourObservation, interfaces: [String], now: Duration) {
        switch observation {
        case .neighbourTable(let all):
            replaceNeighbours(all.filter { interfaces.contains($0.interface) }, now: now)
        case .neighbourUpdated(let neighbour):
            if interfaces.contains(neighbour.interface) { updateNeighbour(neighbour, now: now) }
        case .neighbourRemoved(let neighbour):
            removeNeighbour(neighbour, now: now)
        case .hostAnswered(let hostName, _):
            noteAnswer(hostName: hostName, now: now)
        }
    }

    /// A neighbour entry added or changed.
    /// - Complexity: O(a) for the a addresses of its MAC address.
    public mutating func updateNeighbour(_ neighbour: Neighbour, now: Duration) {
        let address = neighbour.address
        noteStaleness(of: neighbour, replacing: neighbours[address], now: now)
        neighbours[address] = neighbour
        let answering = isAnswering(neighbour, now: now)
        if let mac = neighbour.macAddress, answering {
            lastAnswerByMAC[mac] = max(lastAnswerByMAC[mac] ?? .zero, neighbour.lastConfirmed ?? now)
            failedSince[address] = nil
            detachDroppedAddresses(of: mac, answeredAt: neighbour.lastConfirmed ?? now)
            if let previous = macByAddress[address], previous != mac {
                reportMove(of: address, to: mac, from: previous, now: now)
                markDirty(mac: previous)
                addressesByMAC[previous]?.remove(address)
            }
            macByAddress[address] = mac
            interfaceByAddress[address] = neighbour.interface
            addressesByMAC[mac, default: []].insert(address)
            markDirty(mac: mac)
        } else if let mac = macByAddress[address] {
            if let confirmed = neighbour.lastConfirmed, neighbour.macAddress == nil || neighbour.macAddress == mac {
                lastAnswerByMAC[mac] = max(lastAnswerByMAC[mac] ?? .zero, confirmed)
            }
            if neighbour.state == .failed || neighbour.state == .incomplete {
                noteFailure(of: address, mac: mac, now: now)
            }
            markDirty(mac: mac)
        }
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
    private mutating func detachDroppedAddresses(of mac: String, answeredAt time: Duration) {
        for address in addressesByMAC[mac] ?? [] {
            guard let failed = failedSince[address], failed < time else { continue }
            failedSince[address] = nil
            addressesByMAC[mac]?.remove(address)
            macByAddress[address] = nil
            interfaceByAddress[address] = nil
            markDirty(mac: mac)
            for hostName in hostsByAddress[address] ?? [] { dirtyHosts.insert(hostName) }
        }
    }

    /// A neighbour entry the kernel deleted. The address stays its MAC address's until that MAC address answers on
    /// another address and this one stays gone (see ``updateNeighbour(_:now:)``).
    public mutating func removeNeighbour(_ neighbour: Neighbour, now: Duration) {
        guard neighbours.removeValue(forKey: neighbour.address) != nil else { return }
        unconfirmedSince[neighbour.address] = nil
        if let mac = macByAddress[neighbour.address] {
            noteFailure(of: neighbour.address, mac: mac, now: now)
            markDirty(mac: mac)
        }
    }

    /// The whole neighbour table: entries not in it were deleted.
    /// - Complexity: O(n) for n entries.
    public mutating func replaceNeighbours(_ all: [Neighbour], now: Duration) {
        let current = Set(all.map(\.address))
        for (address, neighbour) in neighbours where !current.contains(address) {
            removeNeighbour(neighbour, now: now)
        }
        for neighbour in all { updateNeighbour(neighbour, now: now) }
    }

    private mutating func reportMove(of address: String, to mac: String, from previous: String, now: Duration) {
        let previousAnswered = lastAnswerByMAC[previous].map { now - $0 < presence.conflictWindow } ?? false
        if previousAnswered {
            if let logged = lastConflictLogged[address], now - logged < presence.conflictWindow { return }
            lastConflictLogged[address] = now
            let isImportant = [mac, previous].contains { mac in
                identities.id(for: .macAddress(mac)).map { labels.label(of: $0).isImportant } ?? false
            }
            pendingEvents.append(
                .addressConflict(
                    address: address,
                    macAddress: mac,
                    previousMACAddress: previous,
                    isImportant: isImportant
                )
            )
        } else {
            let device = hostsByAddress[address]?.min().flatMap { idByOrigin[.host($0)] }
            pendingEvents.append(
                .macChanged(
                    address: address,
                    macAddress: mac,
                    previousMACAddress: previous,
                    device: device ?? idByOrigin[.mac(previous)]
                )
            )
        }
    }
}
