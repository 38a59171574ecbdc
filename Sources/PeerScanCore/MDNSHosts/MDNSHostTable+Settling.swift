// Settling: the changed devices taken, with those still waiting on rows held back for at most a settle window.

import Discovery
import PeerScanModel

extension MDNSHostTable {
    /// The source lost its daemon: the rows it found but had not resolved, and the address lookups it had started,
    /// are gone with it (they are reported again once it is back), so nothing waits on them any more.
    public mutating func sourceWentAway() {
        pendingRows = []
        pendingRowsByName = [:]
        hostsAwaitingAddresses = []
    }

    /// Whether nothing is settling: no row found is still unresolved and no device is held back.
    public var isSettled: Bool { pendingRows.isEmpty && heldHosts.isEmpty && hostsAwaitingAddresses.isEmpty }

    /// A settle window the caller must time: when it has passed, call ``takeChangedHosts(windowExpired:)`` with
    /// its ``window``.
    public struct SettleRequest: Hashable, Sendable {
        /// The window's number.
        public var window: Int
    }

    /// The host names whose device changed since they were last reported, each with its device now (`nil` if gone),
    /// in order of host name — except the devices held back while they settle (see ``MDNSHostTable``).
    ///
    /// - Parameter expired: A window the caller reports as passed: what was held in it (or earlier) is released.
    /// - Returns: The changes to report, and a window to time if a device was held back and no window is open.
    /// - Complexity: O(c log c + r) for c changed hosts and r of their rows.
    public mutating func takeChangedHosts(
        windowExpired expired: Int? = nil
    ) -> (changes: [(hostName: String, host: AnnouncedHost?)], settle: SettleRequest?) {
        var releasedNow: Set<String> = []
        if let expired {
            for (host, heldIn) in heldHosts where heldIn <= expired { releasedNow.insert(host) }
            if expired >= window { isWindowOpen = false }
        }
        var changes: [(hostName: String, host: AnnouncedHost?)] = []
        var stillHeld: Set<String> = []
        var request: SettleRequest?
        for host in changedHosts.sorted() {
            if settles && !releasedNow.contains(host) && isWaiting(host) {
                if heldHosts[host] == nil {
                    if !isWindowOpen {
                        window += 1
                        isWindowOpen = true
                        request = SettleRequest(window: window)
                    }
                    heldHosts[host] = window
                }
                stillHeld.insert(host)
                continue
            }
            heldHosts[host] = nil
            servicesLosingRows[host] = nil
            hostsLosingAddresses.remove(host)
            let announced = self.host(named: host)
            if announced != nil { reportedHosts.insert(host) } else { reportedHosts.remove(host) }
            changes.append((host, announced))
        }
        changedHosts = stillHeld
        return (changes, request)
    }

    /// Whether a host's device waits on rows: not reported yet, with rows of its instance names still unresolved;
    /// or reported, having lost a row, with rows left of that service or of another service of the same instance
    /// name (a device that leaves withdraws all of them at once).
    private func isWaiting(_ host: String) -> Bool {
        guard let keys = keysByHost[host], !keys.isEmpty else { return false }  // gone: nothing to wait for
        if !reportedHosts.contains(host) {
            if hostsAwaitingAddresses.contains(host) { return true }
            return !pendingRowsByName.isEmpty && keys.contains { pendingRowsByName[$0.name] != nil }
        }
        if hostsLosingAddresses.contains(host) { return true }  // its rows may be going too: a departure
        guard let losing = servicesLosingRows[host] else { return false }
        let names = Set(losing.map(\.name))
        return keys.contains { losing.contains($0.service) || names.contains($0.name) }
    }

    mutating func forgetPending(_ key: ServiceInstanceKey) {
        guard pendingRows.remove(key) != nil else { return }
        pendingRowsByName[key.name, default: 1] -= 1
        if pendingRowsByName[key.name] == 0 { pendingRowsByName[key.name] = nil }
    }
}
