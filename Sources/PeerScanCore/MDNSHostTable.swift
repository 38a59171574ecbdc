import Discovery
import Foundation
import PeerScanModel

/// Groups service instances into devices.
///
/// avahi-browse prints one row per (interface, IP protocol, service); the table keeps those rows as they come and
/// derives one ``Device`` per mDNS host name from them. A service is gone only when every instance of it is removed;
/// a device is gone when its last service is.
///
/// When the discovery daemon goes away and comes back, the table keeps its devices: ``beginResync()`` marks every
/// instance unconfirmed, instances reported again are confirmed, and ``finishResync()`` removes only those that were
/// not — so devices that were there all along never churn.
///
/// An interface whose link goes down is treated the same way, for that interface alone: the daemon withdraws
/// everything it learnt there (``DiscoveryEvent/interfaceWithdrawn(_:)``), the table keeps it, what is reported again
/// once the link is back is confirmed, and ``finishWithdrawal(of:final:)`` removes the rest — so a cable pulled and
/// put back is no churn either.
///
/// ## Settling
/// mDNS reports one device in pieces: a service is one row per interface and IP protocol, each resolved on its own
/// (milliseconds apart), and a withdrawn service goes row by row. So that one real event is one change, a table made
/// with `settles: true` holds a device back from ``takeChangedDevices(windowExpired:)`` while it waits on something:
/// - a device not yet reported is held while a row found on the network but not resolved yet may belong to it (a row
///   of the same service instance name: its other protocol or interface, or another service of the same instance);
/// - a reported device is held while a service it lost a row of still has rows left, or another service of the same
///   instance name does, or after it lost an address record (its rows may be going: a device that leaves withdraws
///   all of them within milliseconds).
/// A device waits at most one settle window: when it is first held, ``takeChangedDevices(windowExpired:)`` asks for
/// a window (``SettleRequest``); once the caller reports that window expired, everything held in it is released. A
/// device that waits on nothing is never held.
public struct MDNSHostTable: Sendable {
    /// One resolved instance, and when (in resolution order) it was last resolved.
    private struct Row: Sendable {
        var instance: ServiceInstance
        var hostName: String
        var resolution: UInt64
    }

    private var rows: [ServiceInstanceKey: Row] = [:]
    private var keysByHost: [String: Set<ServiceInstanceKey>] = [:]
    /// The address records of each host with rows: confirmed, and (during a resync) not reported again yet.
    private var addressRecords: [String: Set<HostAddress>] = [:]
    private var unconfirmedAddressRecords: [String: Set<HostAddress>] = [:]
    /// The hosts whose address records are being resynced (from ``beginResync()`` until
    /// ``finishAddressResync(final:)`` settles them).
    private var hostsResyncingAddresses: Set<String> = []
    private var unconfirmed: Set<ServiceInstanceKey> = []
    /// The service types seen (an instance found or resolved, or the type's browser settled) since the resync began.
    private var typesSeenAgain: Set<String> = []
    /// The interfaces withdrawn (their link went down) and not reported back yet, and the rows and address records
    /// learnt on withdrawn interfaces that were not reported again since.
    private var withdrawnInterfaces: Set<String> = []
    /// The interfaces withdrawn whose withdrawal is not finished yet (still down, or back and being learnt again).
    private var resyncingInterfaces: Set<String> = []
    private var withdrawnRows: Set<ServiceInstanceKey> = []
    private var withdrawnAddressRecords: [String: Set<HostAddress>] = [:]
    /// The withdrawn interfaces on which a row or record was withdrawn, or reported again, since their last round; and
    /// those on which one was reported again since they were withdrawn.
    private var interfacesActiveThisRound: Set<String> = []
    private var interfacesReportedAgain: Set<String> = []
    private var resolutionCounter: UInt64 = 0
    private var changedHosts: Set<String> = []

    // Settling (see the type's documentation).
    private let settles: Bool
    /// Rows found but not resolved yet, and how many of them each instance name has.
    private var pendingRows: Set<ServiceInstanceKey> = []
    private var pendingRowsByName: [String: Int] = [:]
    /// The hosts whose device was last reported as present.
    private var reportedHosts: Set<String> = []
    /// The services each reported host lost a row of since it was last reported.
    private var servicesLosingRows: [String: Set<ServiceKey>] = [:]
    /// The reported hosts that lost an address record since they were last reported (their rows may be going too).
    private var hostsLosingAddresses: Set<String> = []
    /// The hosts whose address records the source started to follow and has not reported as known yet.
    private var hostsAwaitingAddresses: Set<String> = []
    /// The hosts held back, with the window each waits in.
    private var heldHosts: [String: Int] = [:]
    /// The last window asked for, and whether it is still open.
    private var window = 0
    private var isWindowOpen = false

    /// Creates an empty table.
    /// - Parameter settles: Whether devices are held back while they wait on rows (see ``MDNSHostTable``).
    public init(settles: Bool = false) {
        self.settles = settles
    }

    /// Whether a resync is under way (``beginResync()`` was called and ``finishResync()`` was not yet).
    public private(set) var isResyncing = false

    /// The number of devices.
    public var deviceCount: Int { keysByHost.count }

    /// Applies a resolution or a removal. Other events do not concern the table.
    /// - Complexity: O(1) expected.
    public mutating func apply(_ event: DiscoveryEvent) {
        switch event {
        case .serviceResolved(let instance):
            resolutionCounter += 1
            let host = DeviceID.canonicalHostName(instance.hostName)
            if let old = rows[instance.key], old.hostName != host { remove(instance.key) }
            forgetPending(instance.key)
            rows[instance.key] = Row(instance: instance, hostName: host, resolution: resolutionCounter)
            keysByHost[host, default: []].insert(instance.key)
            unconfirmed.remove(instance.key)
            confirmWithdrawn(instance.key)
            if isResyncing { typesSeenAgain.insert(instance.key.type) }
            changedHosts.insert(host)
        case .serviceFound(let key):
            unconfirmed.remove(key)  // seen again: its resolution follows
            confirmWithdrawn(key)
            if rows[key] == nil && pendingRows.insert(key).inserted {
                pendingRowsByName[key.name, default: 0] += 1
            }
            if isResyncing { typesSeenAgain.insert(key.type) }
        case .typeSettled(let type):
            if isResyncing { typesSeenAgain.insert(type) }
        case .serviceRemoved(let key):
            forgetPending(key)
            if withdrawnInterfaces.contains(key.interface) && rows[key] != nil {
                withdrawnRows.insert(key)  // withdrawn with its link: kept until the withdrawal is finished
                interfacesActiveThisRound.insert(key.interface)  // the daemon is still withdrawing it
            } else {
                remove(key)
            }
        case .resolveFailed(let key):
            forgetPending(key)  // held devices are looked at again in the next take
        case .addressAdded(let record):
            let host = DeviceID.canonicalHostName(record.hostName)
            guard keysByHost[host] != nil else { return }  // a host no row points to is not followed
            unconfirmedAddressRecords.remove(record, fromSetAt: host)
            if withdrawnAddressRecords.remove(record, fromSetAt: host) { noteReconfirmation(on: record.interface) }
            if addressRecords[host, default: []].insert(record).inserted { changedHosts.insert(host) }
        case .addressRemoved(let record):
            let host = DeviceID.canonicalHostName(record.hostName)
            if hostsResyncingAddresses.contains(host) {
                // A daemon that came back rebuilds its cache, and a response that carries only some of a host's
                // records flushes the others (mDNS's cache-flush bit) until they are asked for again, a second or
                // two later. So a removal now is only "not confirmed": the record stays unless it is not reported
                // again before the address resync ends.
                if addressRecords[host]?.contains(record) == true {
                    unconfirmedAddressRecords[host, default: []].insert(record)
                }
                return
            }
            if resyncingInterfaces.contains(record.interface) {
                // Withdrawn with its link, or flushed while the daemon fills its cache of the returned link again
                // (as after a restart): kept until the withdrawal is finished.
                if addressRecords[host]?.contains(record) == true {
                    withdrawnAddressRecords[host, default: []].insert(record)
                    interfacesActiveThisRound.insert(record.interface)
                }
                return
            }
            unconfirmedAddressRecords.remove(record, fromSetAt: host)
            guard addressRecords[host]?.remove(record) != nil else { return }
            changedHosts.insert(host)
            if settles && reportedHosts.contains(host) { hostsLosingAddresses.insert(host) }
        case .followingAddresses(let hostName):
            hostsAwaitingAddresses.insert(DeviceID.canonicalHostName(hostName))
        case .addressesKnown(let hostName):
            let host = DeviceID.canonicalHostName(hostName)
            if hostsAwaitingAddresses.remove(host) != nil && keysByHost[host] != nil { changedHosts.insert(host) }
        case .interfaceWithdrawn(let interface):
            withdrawnInterfaces.insert(interface)
            resyncingInterfaces.insert(interface)
            interfacesReportedAgain.remove(interface)
            for key in rows.keys where key.interface == interface { withdrawnRows.insert(key) }
            for (host, records) in addressRecords {
                let withdrawn = records.filter { $0.interface == interface }
                if !withdrawn.isEmpty { withdrawnAddressRecords[host, default: []].formUnion(withdrawn) }
            }
        case .interfaceReturned(let interface):
            withdrawnInterfaces.remove(interface)  // from now on a removal there is a departure
        case .browsingSettled, .sourceState, .browsedInterfaces, .observed:
            break
        }
    }

    /// Removes what was learnt on `interface` before it was withdrawn and not reported again since (see
    /// ``DiscoveryEvent/interfaceWithdrawn(_:)``): once its link has been back long enough for the daemon to learn
    /// the link again, or it stayed down that long.
    ///
    /// A daemon withdraws a large link, and learns it again, slowly (on the test LAN, 2,200 services: about a minute,
    /// at the pace it frees and takes resolvers over D-Bus). So the rows not seen again go only once the daemon has
    /// reported from the link again and then a whole round passed in which nothing was withdrawn or reported again.
    /// The address records not reported again go only in the last round: a host's records come back piecemeal (an
    /// answer carrying one of its addresses is no sign the others are gone).
    ///
    /// - Parameter final: Drop everything withdrawn on the interface and not reported again (the last round, or a
    ///   link that is still down).
    /// - Returns: How many devices lost something (a row or an address record), and how many rows and hosts of the
    ///   interface still wait (another round is due while it is not 0).
    /// - Complexity: O(w) for w rows and address records withdrawn on any interface.
    @discardableResult
    public mutating func finishWithdrawal(of interface: String, final: Bool = true) -> (devices: Int, waiting: Int) {
        let wasBusy = interfacesActiveThisRound.remove(interface) != nil
        let isBack = interfacesReportedAgain.contains(interface)
        var touched: Set<String> = []
        var waiting = 0
        if final || (isBack && !wasBusy) {
            for key in withdrawnRows where key.interface == interface {
                if let host = rows[key]?.hostName { touched.insert(host) }
                remove(key)
            }
        } else {
            waiting += withdrawnRows.count { $0.interface == interface }
        }
        for (host, records) in withdrawnAddressRecords {
            let withdrawn = records.filter { $0.interface == interface }
            guard !withdrawn.isEmpty else { continue }
            guard final else {
                waiting += 1
                continue
            }
            withdrawnAddressRecords[host]?.subtract(withdrawn)
            if withdrawnAddressRecords[host]?.isEmpty == true { withdrawnAddressRecords[host] = nil }
            guard addressRecords[host] != nil else { continue }
            addressRecords[host]?.subtract(withdrawn)
            changedHosts.insert(host)
            touched.insert(host)
        }
        if waiting == 0 {
            interfacesReportedAgain.remove(interface)
            resyncingInterfaces.remove(interface)
        }
        return (touched.count, waiting)
    }

    /// A row withdrawn with its interface is reported again.
    private mutating func confirmWithdrawn(_ key: ServiceInstanceKey) {
        if withdrawnRows.remove(key) != nil { noteReconfirmation(on: key.interface) }
    }

    private mutating func noteReconfirmation(on interface: String) {
        interfacesActiveThisRound.insert(interface)
        interfacesReportedAgain.insert(interface)
    }

    /// The devices with a row learnt on `interface` (for the log).
    /// - Complexity: O(r) for r rows.
    public func deviceCount(on interface: String) -> Int {
        Set(rows.values.lazy.filter { $0.instance.key.interface == interface }.map(\.hostName)).count
    }

    private mutating func forgetWithdrawals() {
        withdrawnInterfaces = []
        resyncingInterfaces = []
        withdrawnRows = []
        withdrawnAddressRecords = [:]
        interfacesActiveThisRound = []
        interfacesReportedAgain = []
    }

    /// Marks every instance unconfirmed; instances seen or resolved again before ``finishResync()`` are kept.
    public mutating func beginResync() {
        forgetWithdrawals()  // the daemon that comes back reports every interface anew: the resync covers them
        unconfirmed = Set(rows.keys)
        for (host, records) in addressRecords { unconfirmedAddressRecords[host, default: []].formUnion(records) }
        hostsResyncingAddresses = Set(addressRecords.keys)
        typesSeenAgain = []
        isResyncing = true
    }

    /// Removes the unconfirmed instances of the service types seen again since ``beginResync()``: their browsers
    /// have reported, so an instance still unconfirmed is gone. Instances of types not seen again stay until
    /// ``finishResync()``. The resync ends when no unconfirmed instance is left.
    public mutating func finishResyncOfTypesSeenAgain() {
        for key in unconfirmed where typesSeenAgain.contains(key.type) { remove(key) }
        if unconfirmed.isEmpty { finishResync() }
    }

    /// Removes every instance that was not seen or resolved again since ``beginResync()``.
    public mutating func finishResync() {
        for key in unconfirmed { remove(key) }
        unconfirmed = []
        typesSeenAgain = []
        isResyncing = false
    }

    /// Drops the address records not reported again since ``beginResync()``, and those removed meanwhile and not
    /// reported again since — in the last round.
    ///
    /// Later than the rows: a host's records are only followed again once one of its rows has resolved again, against
    /// a daemon whose cache may be empty (and flushes records while it fills again). And a daemon that comes back to
    /// a large LAN asks every host again, which takes it a while (on the test LAN, 520 hosts: ~27 s until the last
    /// answered, some hosts over 40 s), and a host's records come back piecemeal (an answer carrying one of its
    /// addresses is no sign that the others are gone: dropping them then, they came back seconds later). So the
    /// earlier rounds only tell whether any record still waits; the last one drops what never came back.
    ///
    /// - Parameter final: Drop every record not reported again (the last round).
    /// - Returns: How many hosts still wait for records to be reported again.
    /// - Complexity: O(u) for u unconfirmed records.
    @discardableResult
    public mutating func finishAddressResync(final: Bool = true) -> Int {
        guard final else {
            if unconfirmedAddressRecords.isEmpty { hostsResyncingAddresses = [] }
            return unconfirmedAddressRecords.count
        }
        for (host, records) in unconfirmedAddressRecords where !records.isEmpty {
            addressRecords[host]?.subtract(records)
            changedHosts.insert(host)
        }
        unconfirmedAddressRecords = [:]
        hostsResyncingAddresses = []
        return 0
    }

    /// The source lost its daemon: the rows it found but had not resolved, and the address lookups it had started,
    /// are gone with it (they are reported again once it is back), so nothing waits on them any more.
    public mutating func sourceWentAway() {
        pendingRows = []
        pendingRowsByName = [:]
        hostsAwaitingAddresses = []
    }

    /// Forgets everything (scanning switched off).
    public mutating func removeAll() {
        changedHosts.formUnion(keysByHost.keys)
        rows = [:]
        keysByHost = [:]
        unconfirmed = []
        isResyncing = false
        pendingRows = []
        pendingRowsByName = [:]
        heldHosts = [:]  // nothing is left to wait for: every device goes now
        servicesLosingRows = [:]
        hostsLosingAddresses = []
        hostsAwaitingAddresses = []
        addressRecords = [:]
        unconfirmedAddressRecords = [:]
        hostsResyncingAddresses = []
        forgetWithdrawals()
    }

    /// Whether nothing is settling: no row found is still unresolved and no device is held back.
    public var isSettled: Bool { pendingRows.isEmpty && heldHosts.isEmpty && hostsAwaitingAddresses.isEmpty }

    /// A settle window the caller must time: when it has passed, call ``takeChangedDevices(windowExpired:)`` with
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
    public mutating func takeChangedDevices(
        windowExpired expired: Int? = nil
    ) -> (changes: [(hostName: String, device: Device?)], settle: SettleRequest?) {
        var releasedNow: Set<String> = []
        if let expired {
            for (host, heldIn) in heldHosts where heldIn <= expired { releasedNow.insert(host) }
            if expired >= window { isWindowOpen = false }
        }
        var changes: [(hostName: String, device: Device?)] = []
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
            let device = device(hostName: host)
            if device != nil { reportedHosts.insert(host) } else { reportedHosts.remove(host) }
            changes.append((host, device))
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

    private mutating func forgetPending(_ key: ServiceInstanceKey) {
        guard pendingRows.remove(key) != nil else { return }
        pendingRowsByName[key.name, default: 1] -= 1
        if pendingRowsByName[key.name] == 0 { pendingRowsByName[key.name] = nil }
    }

    /// Every device, in no particular order.
    public var devices: [Device] { keysByHost.keys.compactMap { device(hostName: $0) } }

    /// The device with this canonical host name, derived from its instances, or `nil` if it has none.
    /// - Complexity: O(k log k) for k instances of the device.
    public func device(hostName: String) -> Device? {
        guard let keys = keysByHost[hostName], !keys.isEmpty else { return nil }
        let hostRows = keys.compactMap { rows[$0] }
        var addresses: Set<String> = []
        var interfaces: Set<String> = []
        var latest: [ServiceKey: Row] = [:]
        for record in addressRecords[hostName] ?? [] { addresses.insert(record.address) }
        for record in unconfirmedAddressRecords[hostName] ?? [] { addresses.insert(record.address) }
        for row in hostRows {
            addresses.formUnion(row.instance.addresses)
            interfaces.insert(row.instance.key.interface)
            let service = row.instance.key.service
            if let current = latest[service], current.resolution > row.resolution { continue }
            latest[service] = row
        }
        let services = latest.sorted { $0.key < $1.key }.map { service, row in
            DeviceService(
                name: service.name,
                type: service.type,
                domain: service.domain,
                port: row.instance.port,
                txt: Self.canonicalTXT(row.instance.txt)
            )
        }
        return Device(
            id: DeviceID.make(hostName: hostName),
            hostName: hostName,
            displayName: Self.displayName(hostName: hostName, services: services),
            addresses: addresses.sorted(by: AddressOrder.precedes),
            interfaces: interfaces.sorted(),
            services: services
        )
    }

    private mutating func remove(_ key: ServiceInstanceKey) {
        guard let row = rows.removeValue(forKey: key) else { return }
        if settles && reportedHosts.contains(row.hostName) {
            servicesLosingRows[row.hostName, default: []].insert(key.service)
        }
        unconfirmed.remove(key)
        withdrawnRows.remove(key)
        keysByHost[row.hostName]?.remove(key)
        if keysByHost[row.hostName]?.isEmpty == true {
            keysByHost[row.hostName] = nil
            addressRecords[row.hostName] = nil  // no longer followed
            unconfirmedAddressRecords[row.hostName] = nil
            hostsResyncingAddresses.remove(row.hostName)
            withdrawnAddressRecords[row.hostName] = nil
            hostsAwaitingAddresses.remove(row.hostName)
        }
        changedHosts.insert(row.hostName)
    }

    /// A TXT record in canonical form: the first entry of each key (RFC 6763 §6.4; keys compare case-insensitively),
    /// sorted by key, so that the order a responder publishes in never shows as a change.
    static func canonicalTXT(_ entries: [TXTEntry]) -> [TXTEntry] {
        var seen: Set<String> = []
        return entries.filter { !$0.key.isEmpty && seen.insert($0.key.lowercased()).inserted }.sorted {
            $0.key < $1.key
        }
    }

    /// The instance name most of the services share (ties: the smallest), or the host name's first label.
    static func displayName(hostName: String, services: [DeviceService]) -> String {
        var counts: [String: Int] = [:]
        for service in services { counts[service.name, default: 0] += 1 }
        let best = counts.max { ($0.value, $1.key) < ($1.value, $0.key) }
        return best?.key ?? String(hostName.split(separator: ".").first ?? Substring(hostName))
    }
}

extension Dictionary {
    /// Removes `member` from the set at `key`, and the key once its set is empty (an empty set is no entry).
    ///
    /// - Returns: Whether `member` was there.
    @discardableResult
    fileprivate mutating func remove<Member>(_ member: Member, fromSetAt key: Key) -> Bool where Value == Set<Member> {
        guard self[key]?.remove(member) != nil else { return false }
        if self[key]?.isEmpty == true { self[key] = nil }
        return true
    }
}

/// The order of addresses in a device: IPv4 before IPv6, IPv4 numerically, IPv6 by text.
enum AddressOrder {
    static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        let lhsV4 = ipv4Octets(lhs)
        let rhsV4 = ipv4Octets(rhs)
        switch (lhsV4, rhsV4) {
        case (let l?, let r?): return l.lexicographicallyPrecedes(r)
        case (.some, nil): return true
        case (nil, .some): return false
        case (nil, nil): return lhs < rhs
        }
    }

    private static func ipv4Octets(_ address: String) -> [Int]? {
        let parts = address.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        let octets = parts.compactMap { Int($0) }
        return octets.count == 4 ? octets : nil
    }
}
