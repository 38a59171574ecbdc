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
/// everything it learnt there (``MDNSEvent/interfaceWithdrawn(_:)``), the table keeps it, what is reported again
/// once the link is back is confirmed, and ``finishWithdrawal(of:final:)`` removes the rest — so a cable pulled and
/// put back is no churn either.
///
/// ## Settling
/// mDNS reports one device in pieces: a service is one row per interface and IP protocol, each resolved on its own
/// (milliseconds apart), and a withdrawn service goes row by row. So that one real event is one change, a table made
/// with `settles: true` holds a device back from ``takeChangedHosts(windowExpired:)`` while it waits on something:
/// - a device not yet reported is held while a row found on the network but not resolved yet may belong to it (a row
///   of the same service instance name: its other protocol or interface, or another service of the same instance);
/// - a reported device is held while a service it lost a row of still has rows left, or another service of the same
///   instance name does, or after it lost an address record (its rows may be going: a device that leaves withdraws
///   all of them within milliseconds).
/// A device waits at most one settle window: when it is first held, ``takeChangedHosts(windowExpired:)`` asks for
/// a window (``SettleRequest``); once the caller reports that window expired, everything held in it is released. A
/// device that waits on nothing is never held.
public struct MDNSHostTable: Sendable {
    /// One resolved instance (its key is the row's key in ``rows``: not stored twice), with its canonical host name,
    /// and when (in resolution order) it was last resolved.
    struct Row: Sendable {
        var hostName: String
        var addresses: [String]
        var port: UInt16
        var txt: [TXTEntry]
        var resolution: UInt64

        init(_ instance: ServiceInstance, hostName: String, resolution: UInt64) {
            self.hostName = hostName
            self.addresses = instance.addresses
            self.port = instance.port
            self.txt = instance.txt
            self.resolution = resolution
        }
    }

    // The state below is internal, not private, only for the extensions in MDNSHostTable+*.swift: nothing outside
    // the table touches it.
    var rows: [ServiceInstanceKey: Row] = [:]
    /// The keys of each host's rows, in no order: an array, not a set — a host has a few rows, and a set's hash table
    /// takes twice the memory of an array for them (~220 bytes for one key, against ~110), for every host.
    var keysByHost: [String: [ServiceInstanceKey]] = [:]
    /// The address records of each host with rows: confirmed, and (during a resync) not reported again yet.
    var addressRecords: [String: Set<HostAddress>] = [:]
    var unconfirmedAddressRecords: [String: Set<HostAddress>] = [:]
    /// The hosts whose address records are being resynced (from ``beginResync()`` until
    /// ``finishAddressResync(final:)`` settles them).
    var hostsResyncingAddresses: Set<String> = []
    var unconfirmed: Set<ServiceInstanceKey> = []
    /// The service types seen (an instance found or resolved, or the type's browser settled) since the resync began.
    var typesSeenAgain: Set<String> = []
    /// The interfaces withdrawn (their link went down) and not reported back yet, and the rows and address records
    /// learnt on withdrawn interfaces that were not reported again since.
    var withdrawnInterfaces: Set<String> = []
    /// The interfaces withdrawn whose withdrawal is not finished yet (still down, or back and being learnt again).
    var resyncingInterfaces: Set<String> = []
    var withdrawnRows: Set<ServiceInstanceKey> = []
    var withdrawnAddressRecords: [String: Set<HostAddress>] = [:]
    /// The withdrawn interfaces on which a row or record was withdrawn, or reported again, since their last round; and
    /// those on which one was reported again since they were withdrawn.
    var interfacesActiveThisRound: Set<String> = []
    var interfacesReportedAgain: Set<String> = []
    private var resolutionCounter: UInt64 = 0
    var changedHosts: Set<String> = []

    // Settling (see the type's documentation).
    let settles: Bool
    /// Rows found but not resolved yet, and how many of them each instance name has.
    var pendingRows: Set<ServiceInstanceKey> = []
    var pendingRowsByName: [String: Int] = [:]
    /// The hosts whose device was last reported as present.
    var reportedHosts: Set<String> = []
    /// The services each reported host lost a row of since it was last reported.
    var servicesLosingRows: [String: Set<ServiceKey>] = [:]
    /// The reported hosts that lost an address record since they were last reported (their rows may be going too).
    var hostsLosingAddresses: Set<String> = []
    /// The hosts whose address records the source started to follow and has not reported as known yet.
    var hostsAwaitingAddresses: Set<String> = []
    /// The hosts held back, with the window each waits in.
    var heldHosts: [String: Int] = [:]
    /// The last window asked for, and whether it is still open.
    var window = 0
    var isWindowOpen = false

    /// Creates an empty table.
    /// - Parameter settles: Whether devices are held back while they wait on rows (see ``MDNSHostTable``).
    public init(settles: Bool = false) {
        self.settles = settles
    }

    /// Whether a resync is under way (``beginResync()`` was called and ``finishResync()`` was not yet).
    public internal(set) var isResyncing = false

    /// The number of devices.
    public var deviceCount: Int { keysByHost.count }

    /// Applies a resolution or a removal. Other events do not concern the table.
    /// - Complexity: O(k) for k rows of the host concerned (expected).
    public mutating func apply(_ event: MDNSEvent) {
        switch event {
        case .serviceResolved(let instance):
            resolutionCounter += 1
            let host = DeviceID.canonicalHostName(instance.hostName)
            if let old = rows[instance.key], old.hostName != host { remove(instance.key) }
            forgetPending(instance.key)
            rows[instance.key] = Row(instance, hostName: host, resolution: resolutionCounter)
            if keysByHost[host]?.contains(instance.key) != true { keysByHost[host, default: []].append(instance.key) }
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
        case .browsingSettled, .sourceState, .browsedInterfaces:
            break
        }
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

    mutating func remove(_ key: ServiceInstanceKey) {
        guard let row = rows.removeValue(forKey: key) else { return }
        if settles && reportedHosts.contains(row.hostName) {
            servicesLosingRows[row.hostName, default: []].insert(key.service)
        }
        unconfirmed.remove(key)
        withdrawnRows.remove(key)
        if let index = keysByHost[row.hostName]?.firstIndex(of: key) { keysByHost[row.hostName]?.remove(at: index) }
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
