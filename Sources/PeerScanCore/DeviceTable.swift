import Discovery
import PeerScanModel

/// Merges what the sources know into devices, one per physical host, and keeps their presence.
///
/// ## Merging
/// - An mDNS host (a ``Device`` the ``MDNSHostTable`` derived from its services) is one device. The MAC addresses its
///   addresses resolve to in the neighbour table are its own, and so are the other addresses those MAC addresses
///   answer for (e.g. the IPv6 addresses mDNS did not publish).
/// - A MAC address that no mDNS host's address resolves to is a device of its own, with no host name: every
///   address that resolves to it is its.
/// - Identifiers come from ``identities`` (see ``DeviceIdentities`` for the rules): a device keeps the first one it
///   got. When a MAC-only device's host starts announcing mDNS, the host takes the MAC-only device's identifier: one
///   item, updated. When a host already known by its name turns out to own a MAC-only device's MAC address, the
///   MAC-only item is deleted and its keys join the host's (``Event/merged(_:into:)``).
/// - A MAC address whose key ``identities`` binds to an mDNS host's device (the registry knows them as one: a merge
///   or a MAC-only device that started announcing mDNS, in this run or an earlier one) is that host's while no other
///   host claims its addresses, even before the host's announced addresses resolve to it.
/// - An address belongs to the MAC address it last resolved to: when another MAC address answers for it, it moves
///   (``Event/addressConflict(address:macAddress:previousMACAddress:)`` if the previous one answered within
///   ``Presence/conflictWindow``, else ``Event/macChanged(address:macAddress:previousMACAddress:device:)``).
/// - A neighbour entry teaches a MAC address only once it answers (see ``isAnswering(_:now:)``): an entry the
///   kernel has not verified lately is not taken as a device.
/// - An address stays its MAC address's while the host is silent (an offline device keeps what it was known by), but
///   leaves it when its entry failed and the MAC address then answers on another address: the host dropped it.
///
/// ## Presence
/// A device *answers* while its mDNS host has records, or the kernel holds one of its MAC addresses' entries as
/// answering. It is ``Device/online`` while it answers and for ``Presence/offlineAfter`` after it last did (its last
/// mDNS record went, or the kernel's last confirmation of its entries), and is forgotten (removed) once it has not
/// answered for ``Presence/forgetAfter``. With both zero, a device goes as soon as it stops answering.
///
/// Time is the caller's monotonic clock, passed to every call that needs it: the table does no I/O.
public struct DeviceTable: Sendable {
    /// How presence is judged.
    public struct Presence: Sendable, Equatable {
        /// How long after it last answered a device turns offline.
        public var offlineAfter: Duration
        /// How long after it last answered an offline device is forgotten (at least ``offlineAfter``).
        public var forgetAfter: Duration
        /// When another MAC address answers for an address whose MAC address answered within this time, the two
        /// claim it at once: an address conflict (else the address moved: the MAC changed).
        public var conflictWindow: Duration

        /// Creates a presence policy.
        public init(offlineAfter: Duration, forgetAfter: Duration, conflictWindow: Duration = .seconds(60)) {
            self.offlineAfter = offlineAfter
            self.forgetAfter = max(forgetAfter, offlineAfter)
            self.conflictWindow = conflictWindow
        }

        /// Devices go as soon as they stop answering (mDNS-browser behaviour).
        public static let immediate = Presence(offlineAfter: .zero, forgetAfter: .zero)
    }

    /// Something worth a log line, beyond the item changes.
    public enum Event: Hashable, Sendable {
        /// A device seen for the first time (since it was last forgotten).
        case appeared(Device)
        /// A device seen before (in the registry, or before scanning was switched off) is back.
        case returned(Device)
        /// A device answers again.
        case online(Device)
        /// A device stopped answering ``Presence/offlineAfter`` ago.
        case offline(Device)
        /// A device that had not answered for ``Presence/forgetAfter`` was removed.
        case forgotten(Device)
        /// A MAC-only device turned out to be an mDNS host's: it was removed in favour of that device.
        case merged(Device, into: DeviceID)
        /// One address is claimed by two MAC addresses within the conflict window.
        case addressConflict(address: String, macAddress: String, previousMACAddress: String)
        /// A known address resolves to another MAC address now (the previous one had gone quiet).
        case macChanged(address: String, macAddress: String, previousMACAddress: String, device: DeviceID?)
    }

    /// What a published device was derived from.
    private enum Origin: Hashable, Sendable {
        case host(String)
        case mac(String)
    }

    private struct MDNSHost: Sendable {
        /// The device as the mDNS host table last reported it; its services are emptied once it has none left.
        var device: Device
        var isPresent: Bool
        /// When its last service went (meaningful while not present).
        var lastSeen: Duration
    }

    private let presence: Presence
    private let vendorOf: @Sendable (String) -> String?

    private var mdnsHosts: [String: MDNSHost] = [:]
    private var hostsByAddress: [String: Set<String>] = [:]
    /// The kernel's entries, by address.
    private var neighbours: [String: Neighbour] = [:]
    /// The MAC address each known address last answered with (and on which interface), and the reverse.
    private var macByAddress: [String: String] = [:]
    private var interfaceByAddress: [String: String] = [:]
    private var addressesByMAC: [String: Set<String>] = [:]
    /// When each MAC address last answered (the kernel's confirmation, or when it was seen answering).
    private var lastAnswerByMAC: [String: Duration] = [:]
    private var lastConflictLogged: [String: Duration] = [:]
    /// The known addresses whose entry failed (or went), and since when: one that stays failed while its MAC address
    /// answers again on another address was dropped by its host, and leaves the device.
    private var failedSince: [String: Duration] = [:]

    /// Every key a device was known by, and its identifier.
    public private(set) var identities: DeviceIdentities

    private var published: [DeviceID: Device] = [:]
    private var origins: [DeviceID: Origin] = [:]
    private var idByOrigin: [Origin: DeviceID] = [:]
    private var lastAnswer: [DeviceID: Duration] = [:]
    /// Published devices that do not answer now: their deadlines are checked on every take.
    private var silent: Set<DeviceID> = []

    /// MAC-only devices not published yet because ``holdsNeighbourOnlyDevices`` was set.
    private var heldMACs: Set<String> = []

    /// Whether new MAC-only devices are held back (while peerscand's first mDNS browse settles: the mDNS host that
    /// claims a MAC address may not be known yet, and a MAC-only device published meanwhile would be a false
    /// `new device`, merged a moment later). Clearing it publishes what was held.
    public var holdsNeighbourOnlyDevices = false {
        didSet {
            guard !holdsNeighbourOnlyDevices else { return }
            dirtyMACs.formUnion(heldMACs)
            heldMACs = []
        }
    }

    private var dirtyHosts: Set<String> = []
    private var dirtyMACs: Set<String> = []
    private var pendingChanges: [(id: DeviceID, device: Device?)] = []
    private var pendingEvents: [Event] = []

    /// Creates an empty table.
    /// - Parameters:
    ///   - presence: When devices go offline and are forgotten.
    ///   - vendorOf: The organization behind a MAC address, or `nil`.
    ///   - identities: The identifiers known from before (the registry's).
    public init(
        presence: Presence = .immediate,
        vendorOf: @escaping @Sendable (String) -> String? = { _ in nil },
        identities: DeviceIdentities = DeviceIdentities()
    ) {
        self.presence = presence
        self.vendorOf = vendorOf
        self.identities = identities
    }

    /// The identifier changes since the last take, for the registry.
    public mutating func takeIdentityChanges() -> [IdentityChange] { identities.takeChanges() }

    /// The number of devices published.
    public var deviceCount: Int { published.count }

    // MARK: Inputs

    /// Takes what a source observed. Neighbours on interfaces not in `interfaces` (the scanned ones) are left out;
    /// the removal of one never seen is ignored.
    /// - Complexity: that of the observation's own input below.
    public mutating func observe(_ observation: Observation, interfaces: [String], now: Duration) {
        switch observation {
        case .neighbourTable(let all):
            replaceNeighbours(all.filter { interfaces.contains($0.interface) }, now: now)
        case .neighbourUpdated(let neighbour):
            if interfaces.contains(neighbour.interface) { updateNeighbour(neighbour, now: now) }
        case .neighbourRemoved(let neighbour):
            removeNeighbour(neighbour, now: now)
        }
    }

    /// An mDNS host's device as the mDNS host table reports it now; `nil` when its last service went.
    /// - Complexity: O(a) for a addresses of the device.
    public mutating func updateMDNSDevice(hostName: String, device: Device?, now: Duration) {
        if let device {
            let oldAddresses = mdnsHosts[hostName]?.device.addresses ?? []
            mdnsHosts[hostName] = MDNSHost(device: device, isPresent: true, lastSeen: now)
            for address in oldAddresses where !device.addresses.contains(address) {
                if let mac = macByAddress[address] { markDirty(mac: mac) }
                hostsByAddress[address]?.remove(hostName)
                if hostsByAddress[address]?.isEmpty == true { hostsByAddress[address] = nil }
            }
            for address in device.addresses { hostsByAddress[address, default: []].insert(hostName) }
        } else {
            guard var host = mdnsHosts[hostName], host.isPresent else { return }
            host.isPresent = false
            host.lastSeen = now
            host.device.services = []
            mdnsHosts[hostName] = host
        }
        markDirty(host: hostName)
    }

    /// A neighbour entry added or changed.
    /// - Complexity: O(a) for the a addresses of its MAC address.
    public mutating func updateNeighbour(_ neighbour: Neighbour, now: Duration) {
        let address = neighbour.address
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

    /// Forgets everything (scanning switched off): every device goes now.
    public mutating func removeAll() {
        pendingChanges += published.keys.map { ($0, nil) }
        published = [:]
        origins = [:]
        idByOrigin = [:]
        lastAnswer = [:]
        silent = []
        mdnsHosts = [:]
        hostsByAddress = [:]
        neighbours = [:]
        macByAddress = [:]
        interfaceByAddress = [:]
        addressesByMAC = [:]
        lastAnswerByMAC = [:]
        lastConflictLogged = [:]
        failedSince = [:]
        heldMACs = []
        dirtyHosts = []
        dirtyMACs = []
    }

    /// Forgets a device and every key it was known by (an operator's request). A device that answers now stays,
    /// with its history starting over (it is new again); one that does not is removed.
    ///
    /// - Returns: Whether the device was known.
    public mutating func forget(_ id: DeviceID, now: Duration) -> Bool {
        let known = identities.isKnown(id) || published[id] != nil
        identities.forget(id)
        guard let origin = origins[id] else { return known }
        if silent.contains(id) {
            switch origin {
            case .host(let hostName): forget(hostName: hostName)
            case .mac(let mac): forget(mac: mac)
            }
            publish(nil, origin: origin, answering: false, lastAnswer: now, forgets: true)
        } else {
            published[id] = nil  // published again as a new device, with its keys bound anew
            markForDerivation(origin)
        }
        return known
    }

    /// Whether the kernel's entry counts as the neighbour answering now: reachable, being verified (delay, probe)
    /// or configured (permanent); stale only if the kernel confirmed it within ``Presence/offlineAfter`` (an entry
    /// may stay stale for hours after its host left, until traffic makes the kernel verify it: the daemon's
    /// probing does).
    public func isAnswering(_ neighbour: Neighbour, now: Duration) -> Bool {
        switch neighbour.state {
        case .reachable, .delay, .probe, .permanent:
            return neighbour.macAddress != nil
        case .stale:
            guard neighbour.macAddress != nil else { return false }
            guard let confirmed = neighbour.lastConfirmed else { return true }
            return now - confirmed < presence.offlineAfter
        case .incomplete, .failed:
            return false
        }
    }

    // MARK: Output

    /// The devices that changed since the last take, each with its item now (`nil` if removed), in order of
    /// identifier, and the events to log. Checks the deadlines of devices that do not answer.
    /// - Complexity: O(d + s) for d devices touched since the last take and s devices not answering.
    public mutating func takeChanges(now: Duration) -> (changes: [(id: DeviceID, device: Device?)], events: [Event]) {
        for id in silent {
            guard let device = published[id], let last = lastAnswer[id], let origin = origins[id] else { continue }
            let deadline = device.online ? presence.offlineAfter : presence.forgetAfter
            guard now >= last + deadline else { continue }
            markForDerivation(origin)
        }
        while !dirtyHosts.isEmpty || !dirtyMACs.isEmpty {
            for hostName in dirtyHosts.sorted() {
                dirtyHosts.remove(hostName)
                derive(hostName: hostName, now: now)
            }
            for mac in dirtyMACs.sorted() {
                dirtyMACs.remove(mac)
                derive(mac: mac, now: now)
            }
        }
        defer {
            pendingChanges = []
            pendingEvents = []
        }
        var latest: [DeviceID: Device?] = [:]
        for (id, device) in pendingChanges { latest[id] = device }  // a device's last change counts
        return (latest.map { (id: $0.key, device: $0.value) }.sorted { $0.id < $1.id }, pendingEvents)
    }

    // MARK: Derivation

    /// Derives the device of `origin` again at the next take.
    private mutating func markForDerivation(_ origin: Origin) {
        switch origin {
        case .host(let hostName): dirtyHosts.insert(hostName)
        case .mac(let mac): dirtyMACs.insert(mac)
        }
    }

    private mutating func markDirty(host hostName: String) {
        dirtyHosts.insert(hostName)
        for address in mdnsHosts[hostName]?.device.addresses ?? [] {
            if let mac = macByAddress[address] { dirtyMACs.insert(mac) }
        }
        if let id = idByOrigin[.host(hostName)] { dirtyMACs.formUnion(linkedMACs(of: id)) }
    }

    private mutating func markDirty(mac: String) {
        dirtyMACs.insert(mac)
        for address in addressesByMAC[mac] ?? [] {
            for hostName in hostsByAddress[address] ?? [] { dirtyHosts.insert(hostName) }
        }
        if let hostName = linkedHost(of: mac) { dirtyHosts.insert(hostName) }
    }

    /// The published mDNS host whose device `mac`'s key is bound to (the registry knows them as one device).
    private func linkedHost(of mac: String) -> String? {
        guard let id = identities.id(for: .macAddress(mac)), case .host(let hostName)? = origins[id] else { return nil }
        return hostName
    }

    /// The MAC addresses bound to `id` that answer for some address now.
    private func linkedMACs(of id: DeviceID) -> [String] {
        identities.keys(of: id).compactMap { key in
            guard case .macAddress(let mac) = key, addressesByMAC[mac]?.isEmpty == false else { return nil }
            return mac
        }
    }

    /// Whether no mDNS host other than `hostName` claims one of `mac`'s addresses.
    private func isUnclaimed(_ mac: String, except hostName: String) -> Bool {
        (addressesByMAC[mac] ?? []).allSatisfy { address in
            (hostsByAddress[address] ?? []).allSatisfy { $0 == hostName }
        }
    }

    private func answers(mac: String, now: Duration) -> Bool {
        (addressesByMAC[mac] ?? []).contains { address in
            guard let neighbour = neighbours[address], neighbour.macAddress == mac else { return false }
            return isAnswering(neighbour, now: now)
        }
    }

    private func interfaces(of addresses: Set<String>) -> Set<String> {
        Set(addresses.compactMap { interfaceByAddress[$0] })
    }

    private mutating func derive(hostName: String, now: Duration) {
        let origin = Origin.host(hostName)
        guard let host = mdnsHosts[hostName] else {
            publish(nil, origin: origin, answering: false, lastAnswer: now)
            return
        }
        var macs = Set(host.device.addresses.compactMap { macByAddress[$0] })
        // The MAC addresses the registry knows as this device's are its own too, while no other host claims them
        // (its mDNS addresses may not be resolved yet: after a restart, or an IPv6-only announcement).
        if let known = idByOrigin[origin] ?? identities.id(for: .hostName(DeviceID.canonicalHostName(hostName))) {
            for mac in linkedMACs(of: known) where isUnclaimed(mac, except: hostName) { macs.insert(mac) }
        }
        var addresses = Set(host.device.addresses)
        for mac in macs { addresses.formUnion(addressesByMAC[mac] ?? []) }
        let answering = host.isPresent || macs.contains { answers(mac: $0, now: now) }
        var last = host.isPresent ? now : host.lastSeen
        for mac in macs { last = max(last, lastAnswerByMAC[mac] ?? .zero) }
        let online = answering || now < last + presence.offlineAfter
        if !online && now >= last + presence.forgetAfter {
            forget(hostName: hostName)
            for mac in macs { forget(mac: mac) }
            publish(nil, origin: origin, answering: false, lastAnswer: last, forgets: true)
            return
        }
        var device = host.device
        let sortedMACs = macs.sorted()
        device.id = identify(origin, macAddresses: sortedMACs)
        device.addresses = addresses.sorted(by: AddressOrder.precedes)
        device.interfaces = Set(host.device.interfaces).union(interfaces(of: addresses)).sorted()
        device.macAddresses = sortedMACs
        device.vendor = sortedMACs.first.flatMap(vendorOf)
        device.online = online
        publish(device, origin: origin, answering: answering, lastAnswer: last)
    }

    private mutating func derive(mac: String, now: Duration) {
        let origin = Origin.mac(mac)
        let addresses = addressesByMAC[mac] ?? []
        let hostsByAddress = self.hostsByAddress
        let owner = addresses.compactMap { hostsByAddress[$0]?.min() }.min() ?? linkedHost(of: mac)
        guard !addresses.isEmpty, owner == nil else {
            publish(nil, origin: origin, answering: false, lastAnswer: now, mergedInto: owner.map(Origin.host))
            return
        }
        if holdsNeighbourOnlyDevices && idByOrigin[origin] == nil {
            heldMACs.insert(mac)
            return
        }
        heldMACs.remove(mac)
        let answering = answers(mac: mac, now: now)
        let last = lastAnswerByMAC[mac] ?? now
        let online = answering || now < last + presence.offlineAfter
        if !online && now >= last + presence.forgetAfter {
            forget(mac: mac)
            publish(nil, origin: origin, answering: false, lastAnswer: last, forgets: true)
            return
        }
        let device = Device(
            id: identify(origin, macAddresses: [mac]),
            hostName: nil,
            displayName: nil,
            addresses: addresses.sorted(by: AddressOrder.precedes),
            interfaces: interfaces(of: addresses).sorted(),
            services: [],
            macAddresses: [mac],
            vendor: vendorOf(mac),
            online: online
        )
        publish(device, origin: origin, answering: answering, lastAnswer: last)
    }

    /// The identifier of the device derived from `origin`: the one it has, or one from ``identities``. Binds the
    /// device's keys either way.
    private mutating func identify(_ origin: Origin, macAddresses: [String]) -> DeviceID {
        let current = idByOrigin[origin]
        let origins = self.origins
        let isAvailable = { (id: DeviceID) -> Bool in
            guard let holder = origins[id], holder != origin else { return true }
            // A host takes over the item of a MAC-only device of one of its MAC addresses.
            if case .host = origin, case .mac(let mac) = holder, macAddresses.contains(mac) { return true }
            return false
        }
        switch origin {
        case .host(let hostName):
            return identities.identify(
                hostName: hostName,
                macAddresses: macAddresses,
                current: current,
                isAvailable: isAvailable
            )
        case .mac(let mac):
            return identities.identify(macAddress: mac, current: current, isAvailable: isAvailable)
        }
    }

    /// Publishes what `origin` derives now: `device`, or nothing (the device went: forgotten, if `forgets`, or merged
    /// into the device of `owner`).
    private mutating func publish(
        _ device: Device?,
        origin: Origin,
        answering: Bool,
        lastAnswer last: Duration,
        mergedInto owner: Origin? = nil,
        forgets: Bool = false
    ) {
        guard let device else {
            guard let id = idByOrigin.removeValue(forKey: origin), origins[id] == origin,
                let old = published.removeValue(forKey: id)
            else { return }
            origins[id] = nil
            lastAnswer[id] = nil
            silent.remove(id)
            pendingChanges.append((id, nil))
            if let survivor = owner.flatMap({ idByOrigin[$0] }), survivor != id {
                identities.merge(id, into: survivor)
                pendingEvents.append(.merged(old, into: survivor))
            } else {
                if forgets { identities.forget(id) }
                pendingEvents.append(.forgotten(old))
            }
            return
        }
        let id = device.id
        if let holder = origins[id], holder != origin { idByOrigin[holder] = nil }  // taken over
        let old = published[id]
        published[id] = device
        origins[id] = origin
        idByOrigin[origin] = id
        lastAnswer[id] = last
        if answering { silent.remove(id) } else { silent.insert(id) }
        guard old != device else { return }
        pendingChanges.append((id, device))
        if let old {
            if old.online != device.online { pendingEvents.append(device.online ? .online(device) : .offline(device)) }
        } else if identities.notePublished(id) {
            pendingEvents.append(.returned(device))
        } else {
            pendingEvents.append(.appeared(device))
        }
    }

    private mutating func reportMove(of address: String, to mac: String, from previous: String, now: Duration) {
        let previousAnswered = lastAnswerByMAC[previous].map { now - $0 < presence.conflictWindow } ?? false
        if previousAnswered {
            if let logged = lastConflictLogged[address], now - logged < presence.conflictWindow { return }
            lastConflictLogged[address] = now
            pendingEvents.append(.addressConflict(address: address, macAddress: mac, previousMACAddress: previous))
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

    private mutating func forget(hostName: String) {
        guard let host = mdnsHosts.removeValue(forKey: hostName) else { return }
        for address in host.device.addresses {
            hostsByAddress[address]?.remove(hostName)
            if hostsByAddress[address]?.isEmpty == true { hostsByAddress[address] = nil }
            if let mac = macByAddress[address] { forget(mac: mac) }
        }
    }

    private mutating func forget(mac: String) {
        for address in addressesByMAC.removeValue(forKey: mac) ?? [] where macByAddress[address] == mac {
            macByAddress[address] = nil
            interfaceByAddress[address] = nil
            failedSince[address] = nil
        }
        lastAnswerByMAC[mac] = nil
        dirtyMACs.insert(mac)
    }
}
