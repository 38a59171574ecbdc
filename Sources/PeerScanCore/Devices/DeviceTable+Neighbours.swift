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
        apply(addressBook.update(neighbour, now: now))
    }

    /// A neighbour entry the kernel deleted. The address stays its MAC address's until that MAC address answers on
    /// another address and this one stays gone (see ``updateNeighbour(_:now:)``).
    public mutating func removeNeighbour(_ neighbour: Neighbour, now: Duration) {
        apply(addressBook.remove(neighbour, now: now))
    }

    /// The whole neighbour table: entries not in it were deleted.
    /// - Complexity: O(n) for n entries.
    public mutating func replaceNeighbours(_ all: [Neighbour], now: Duration) {
        apply(addressBook.replaceAll(with: all, now: now))
    }

    /// Derives again what the address book's change touched, and reports its moves.
    private mutating func apply(_ change: NeighbourAddressBook.Change) {
        for move in change.moves { report(move) }
        for address in change.detachedAddresses {
            for hostName in mdnsHosts.hosts(announcing: address) { derivations.mark(host: hostName) }
        }
        for mac in change.macAddresses { markDirty(mac: mac) }
    }

    /// Reports an address that answers with another MAC address now.
    private mutating func report(_ move: NeighbourAddressBook.Move) {
        switch move {
        case .conflict(let address, let mac, let previous):
            let isImportant = [mac, previous].contains { mac in
                identities.id(for: .macAddress(mac)).map { labels.label(of: $0).isImportant } ?? false
            }
            outbox.add(
                .addressConflict(
                    address: address,
                    macAddress: mac,
                    previousMACAddress: previous,
                    isImportant: isImportant
                )
            )
        case .macChanged(let address, let mac, let previous):
            let device = mdnsHosts.hosts(announcing: address).min().flatMap { published.id(of: .host($0)) }
            outbox.add(
                .macChanged(
                    address: address,
                    macAddress: mac,
                    previousMACAddress: previous,
                    device: device ?? published.id(of: .mac(previous))
                )
            )
        }
    }
}
