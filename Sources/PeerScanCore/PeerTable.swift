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
public struct PeerTable: Sendable {
    /// One resolved instance, and when (in resolution order) it was last resolved.
    private struct Row: Sendable {
        var instance: ServiceInstance
        var hostName: String
        var resolution: UInt64
    }

    private var rows: [ServiceInstanceKey: Row] = [:]
    private var keysByHost: [String: Set<ServiceInstanceKey>] = [:]
    private var unconfirmed: Set<ServiceInstanceKey> = []
    /// The service types seen (an instance found or resolved, or the type's browser settled) since the resync began.
    private var typesSeenAgain: Set<String> = []
    private var resolutionCounter: UInt64 = 0
    private var changedHosts: Set<String> = []

    /// Creates an empty table.
    public init() {}

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
            rows[instance.key] = Row(instance: instance, hostName: host, resolution: resolutionCounter)
            keysByHost[host, default: []].insert(instance.key)
            unconfirmed.remove(instance.key)
            if isResyncing { typesSeenAgain.insert(instance.key.type) }
            changedHosts.insert(host)
        case .serviceFound(let key):
            unconfirmed.remove(key)  // seen again: its resolution follows
            if isResyncing { typesSeenAgain.insert(key.type) }
        case .typeSettled(let type):
            if isResyncing { typesSeenAgain.insert(type) }
        case .serviceRemoved(let key):
            remove(key)
        case .browsingSettled, .sourceState, .browsedInterfaces:
            break
        }
    }

    /// Marks every instance unconfirmed; instances seen or resolved again before ``finishResync()`` are kept.
    public mutating func beginResync() {
        unconfirmed = Set(rows.keys)
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

    /// Forgets everything (scanning switched off).
    public mutating func removeAll() {
        changedHosts.formUnion(keysByHost.keys)
        rows = [:]
        keysByHost = [:]
        unconfirmed = []
        isResyncing = false
    }

    /// The host names whose device may have changed since the last call, each with its device now (`nil` if gone).
    public mutating func takeChangedDevices() -> [(hostName: String, device: Device?)] {
        defer { changedHosts = [] }
        return changedHosts.sorted().map { ($0, device(hostName: $0)) }
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
        unconfirmed.remove(key)
        keysByHost[row.hostName]?.remove(key)
        if keysByHost[row.hostName]?.isEmpty == true { keysByHost[row.hostName] = nil }
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
