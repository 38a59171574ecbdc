// The device table's mDNS hosts: what the mDNS host table last reported of each host, its presence and questions, and
// which hosts announce each address. A value the table owns; derivation reads it (DeviceTable+Publishing.swift), the
// questions note on it (DeviceTable+Questions.swift).

/// The mDNS hosts as the mDNS host table last reported them (``DeviceTable/MDNSHost``), and the hosts that announce each
/// address.
///
/// ## Performance
/// A look-up is O(1); an update or removal is O(a) for a addresses of the host (the lists at an address nearly always
/// hold one host).
struct MDNSHostBook: Sendable {
    private var hosts: [String: DeviceTable.MDNSHost] = [:]
    /// The mDNS hosts that announce each address (nearly always one): lists, not sets — a set's table for one name is
    /// twice an array's, for every address.
    private var hostsByAddress: [String: [String]] = [:]

    /// The mDNS host `hostName`, or `nil` if none is known.
    subscript(hostName: String) -> DeviceTable.MDNSHost? { hosts[hostName] }

    /// The mDNS hosts that announce `address`, in the order they first did.
    func hosts(announcing address: String) -> [String] { hostsByAddress[address] ?? [] }

    /// Records the mDNS host `hostName` as the mDNS host table reports it now (`nil`: its last service went).
    /// - Returns: The addresses it no longer announces, or `nil` if nothing changed (a host withdrawn that was not
    ///   present).
    /// - Complexity: O(a) for a addresses of the host.
    mutating func update(hostName: String, host announced: AnnouncedHost?, now: Duration) -> [String]? {
        guard let announced else {
            guard var host = hosts[hostName], host.isPresent else { return nil }
            host.isPresent = false
            host.lastSeen = now
            host.services = []
            hosts[hostName] = host
            return []
        }
        let old = hosts[hostName]
        var host =
            old
            ?? DeviceTable.MDNSHost(
                displayName: nil,
                addresses: [],
                interfaces: [],
                services: [],
                isPresent: true,
                lastSeen: now,
                appearedAt: now
            )
        if !host.isPresent { host.appearedAt = now }
        host.displayName = announced.displayName
        host.addresses = announced.addresses
        host.interfaces = announced.interfaces
        host.services = announced.services
        host.isPresent = true
        host.lastSeen = now
        hosts[hostName] = host
        let dropped = (old?.addresses ?? []).filter { !announced.addresses.contains($0) }
        for address in dropped { hostsByAddress.remove(hostName, fromListAt: address) }
        for address in announced.addresses { hostsByAddress.insert(hostName, intoListAt: address) }
        return dropped
    }

    /// Notes that `hostName` answered a question at `now`.
    /// - Returns: Whether the host is known (an unknown one is ignored).
    mutating func noteAnswer(hostName: String, now: Duration) -> Bool {
        guard hosts[hostName] != nil else { return false }
        hosts[hostName]?.answeredAt = now
        return true
    }

    /// Notes that `hostName` was asked at `now` (`nil`: its last question is forgotten, its kernel entries answer).
    mutating func noteAsked(hostName: String, at now: Duration?) {
        guard hosts[hostName] != nil, hosts[hostName]?.askedAt != now else { return }
        hosts[hostName]?.askedAt = now
    }

    /// Forgets `hostName`.
    /// - Returns: The host as it was, or `nil` if none was known.
    /// - Complexity: O(a) for a addresses of the host.
    mutating func remove(hostName: String) -> DeviceTable.MDNSHost? {
        guard let host = hosts.removeValue(forKey: hostName) else { return nil }
        for address in host.addresses { hostsByAddress.remove(hostName, fromListAt: address) }
        return host
    }

    /// Forgets every host.
    mutating func removeAll() {
        hosts = [:]
        hostsByAddress = [:]
    }
}

extension Dictionary where Value == [String] {
    /// Adds `member` to the list at `key` unless it is in it already.
    /// - Complexity: O(m) for m members of the list.
    mutating func insert(_ member: String, intoListAt key: Key) {
        if self[key]?.contains(member) != true { self[key, default: []].append(member) }
    }

    /// Removes `member` from the list at `key`, and the key once its list is empty (an empty list is no entry).
    /// - Complexity: O(m) for m members of the list.
    mutating func remove(_ member: String, fromListAt key: Key) {
        guard let index = self[key]?.firstIndex(of: member) else { return }
        self[key]?.remove(at: index)
        if self[key]?.isEmpty == true { self[key] = nil }
    }
}
