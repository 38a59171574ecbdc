// The device table's presence: whether a neighbour or a MAC address answers, and forgetting devices.

import Discovery
import PeerScanModel

extension DeviceTable {
    /// Whether the kernel's entry counts as the neighbour answering now: reachable or configured (permanent); stale or
    /// being verified (delay, probe) if the kernel confirmed it within ``Presence/offlineAfter``, or if it left the
    /// reachable state less than ``Presence/staleGrace`` ago — without forced re-probes the kernel keeps an entry
    /// reachable for its reachable time (15–45 s, which may outlast the window) and verifies it only once it is stale
    /// and traffic goes to it (the daemon's next probe round). An entry unconfirmed since before the table knew it (one
    /// left over from a host that left hours ago, or one a silent host's own requests refreshed) counts only by its
    /// confirmation.
    public func isAnswering(_ neighbour: Neighbour, now: Duration) -> Bool {
        addressBook.isAnswering(neighbour, now: now)
    }

    /// Forgets a device and every key it was known by (an operator's request). A device that answers now stays,
    /// with its history starting over (it is new again); one that does not is removed.
    ///
    /// - Returns: Whether the device was known.
    public mutating func forget(_ id: DeviceID, now: Duration) -> Bool {
        let known = isKnown(id)
        identities.forget(id)
        labels.forget(id)
        if bluetooth.key(of: id) != nil { bindIRK(nil, to: id) }
        guard let origin = published.origin(of: id) else { return known }
        // A Bluetooth device is never in `silent` (its deadlines are its own): offline is its silence.
        if origin.isBluetooth ? published.device(id)?.online == false : silent.contains(id) {
            switch origin {
            case .host(let hostName): forget(hostName: hostName)
            case .mac(let mac): forget(mac: mac)
            case .bluetooth(let identity): bluetooth.remove(identity)
            }
            withdraw(origin, forgets: true)
        } else {
            published.dropItem(of: id)  // published again as a new device, with its keys bound anew
            markForDerivation(origin)
        }
        return known
    }

    mutating func forget(hostName: String) {
        guard let host = mdnsHosts.remove(hostName: hostName) else { return }
        for address in host.addresses {
            if let mac = addressBook.macAddress(of: address) { forget(mac: mac) }
        }
    }

    mutating func forget(mac: String) {
        addressBook.forget(mac: mac)
        derivations.mark(mac: mac)
    }
}
