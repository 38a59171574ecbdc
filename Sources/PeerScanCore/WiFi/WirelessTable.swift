import Discovery
import MonitoringLog
import PeerScanModel

/// The Wi-Fi part of the store: the host's wireless interfaces and the access points their scans heard, grouped into
/// networks as the `config` and `networks` sections show them.
///
/// A pure value driven by ``WirelessObservation``s and a `now` on the daemon's ``ScanClock``: it keeps access points
/// by BSSID with when they were last heard and their signal, groups them into networks (SSID + security; a hidden
/// network per BSSID), gives each network bars with hysteresis (``bars(signal:previous:)``), expires access points
/// after ``expiry``, lists at most ``capacity`` networks (``NetworkCapacity``), keeps the evil-twin baseline
/// (``known``: the networks this host connected to and those a person marked known) and checks every access point of
/// a known SSID against it, and tells what changed since it was last asked (``takeChanges(now:)``) — nothing when
/// nothing changed — with its log lines and what the registry should record.
///
/// ## Performance
/// A scan result of s access points costs O(s log s + p) for the p access points held, plus O(n log n) for the n
/// networks held when the list is full and the scan brought new ones; ``takeChanges(now:)`` O(c log c) for the c
/// networks that changed (and O(p) when an access point expires); ``nextExpiry`` O(1). Nothing depends on what was
/// heard before and left: the table holds only what is in the air (at most ``capacity`` networks) and the baseline.
public struct WirelessTable: Sendable {
    /// How long an access point stays after it was last heard (`--wifi-expire`).
    public let expiry: Duration
    /// The most networks listed (`--wifi-networks-max`).
    public let capacity: NetworkCapacity
    /// The evil-twin baseline: the networks this host connected to and those a person marked known.
    public internal(set) var known: KnownNetworks
    let vendorOf: @Sendable (String) -> String?
    private var interfaces: [String: WirelessInterface] = [:]
    var heard: [String: Heard] = [:]
    /// The BSSIDs held of each network.
    var members: [DeviceID: Set<String>] = [:]
    private var barsByNetwork: [DeviceID: Int] = [:]
    private var shown: [DeviceID: WiFiNetwork] = [:]
    /// The networks whose item may have changed since ``takeChanges(now:)`` last looked.
    private var dirty: Set<DeviceID> = []
    /// The earliest `lastSeen` held (`nil`: none held), brought up to date after every scan and expiry.
    private var earliestLastSeen: Duration?
    /// Whether ``earliestLastSeen`` must be computed again (the access point that had it was heard again, or left).
    private var isEarliestStale = false
    var logs: [LogEntry] = []
    var records = WirelessRecords()

    /// An access point, the network it belongs to, and when a sighting of it was last handed to the registry.
    struct Heard: Sendable {
        var accessPoint: AccessPoint
        var network: DeviceID
        var recorded: Duration
    }

    /// What changed since the table was last asked.
    public struct Changes: Sendable {
        /// The networks that changed (`nil`: removed).
        public var networks: [(id: DeviceID, network: WiFiNetwork?)] = []
        /// The log lines, in order.
        public var logs: [LogEntry] = []
        /// What the registry should record.
        public var records = WirelessRecords()
    }

    /// How often an access point that stays is handed to the registry again (its `last_seen`, which
    /// `--forget-after` counts from).
    public static let sightingInterval: Duration = .seconds(60)

    /// Creates a table.
    ///
    /// - Parameters:
    ///   - expiry: How long an access point stays after it was last heard.
    ///   - capacity: The most networks listed.
    ///   - known: The evil-twin baseline from before (the registry's).
    ///   - vendorOf: The organization behind a MAC address (a BSSID's OUI).
    public init(
        expiry: Duration,
        capacity: NetworkCapacity = NetworkCapacity(),
        known: KnownNetworks = KnownNetworks(),
        vendorOf: @escaping @Sendable (String) -> String? = { _ in nil }
    ) {
        self.expiry = expiry
        self.capacity = capacity
        self.known = known
        self.vendorOf = vendorOf
    }

    /// The number of networks listed (after the last observation; expired ones count until ``expire(now:)``).
    public var networkCount: Int { members.count }

    /// Whether a network was left out or evicted for want of room since the list was last under the cap.
    public private(set) var isFull = false

    /// How full the cap is, for the `wifi-networks` limit.
    public var fill: SystemLimitCounts.Cap {
        SystemLimitCounts.Cap(count: members.count, maximum: capacity.maximum, isFull: isFull)
    }

    /// Takes an observation in.
    ///
    /// - Complexity: O(s log s) for a scan result of s access points, plus O(n log n) for the n networks held when
    ///   the list is full and the scan brought new ones (and the baseline's access points of an SSID whose baseline
    ///   changed).
    public mutating func apply(_ observation: WirelessObservation, now: Duration) {
        switch observation {
        case .interfaces(let list):
            let before = (connected: connectedBSSIDs, reported: !interfaces.isEmpty)
            interfaces = Dictionary(list.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last })
            let after = connectedBSSIDs
            if before.reported == interfaces.isEmpty {
                dirty.formUnion(members.keys)  // the scan results' flags count, or stop counting
            } else {
                for bssid in before.connected.symmetricDifference(after) {
                    if let network = heard[bssid]?.network { dirty.insert(network) }
                }
            }
            learnConnections(after)
        case .scanResults(_, let accessPoints):
            expire(now: now)  // an access point back after it expired is heard anew
            var newcomers: [(network: DeviceID, accessPoint: AccessPoint)] = []  // of networks not listed, in order
            let scanned = accessPoints.sorted(by: { $0.bssid < $1.bssid }).compactMap { accessPoint in
                now - accessPoint.lastSeen < expiry  // else an old cache entry
                    ? (
                        DeviceID.make(networkOf: (accessPoint.ssid, accessPoint.security, accessPoint.bssid)),
                        accessPoint
                    )
                    : nil
            }
            // A network one of whose access points is protected (connected) is, with all its access points.
            let protected = Set(scanned.filter { isProtected($0.0, $0.1) }.map(\.0))
            for (network, accessPoint) in scanned {
                if members[network] == nil, !protected.contains(network) {
                    newcomers.append((network, accessPoint))
                } else {
                    take(accessPoint, network: network)
                }
            }
            if Set(newcomers.map(\.network)).count <= capacity.maximum - members.count {
                for (network, accessPoint) in newcomers { take(accessPoint, network: network) }
            } else {
                // The strongest first, in the room there is and absent networks leave.
                admit(Dictionary(grouping: newcomers, by: \.network).mapValues { $0.map(\.accessPoint) }, now: now)
            }
            refreshEarliestLastSeen()
            if interfaces.isEmpty {
                learnConnections(Set(accessPoints.filter(\.isConnected).map { $0.bssid.lowercased() }))
            } else {
                learnConnections(connectedBSSIDs)
            }
        }
    }

    /// Holds an access point heard (a newer sighting than the one held), noting what a first sighting teaches.
    private mutating func take(_ accessPoint: AccessPoint, network: DeviceID) {
        let bssid = accessPoint.bssid.lowercased()
        let old = heard[bssid]
        if let old, old.accessPoint.lastSeen > accessPoint.lastSeen, old.network == network {
            return  // another interface's older sighting
        }
        var recorded = old?.recorded ?? accessPoint.lastSeen
        if old?.network != network {
            if let old { remove(bssid, of: old.network) }
            noteSighting(accessPoint, bssid: bssid, network: network)
            recorded = accessPoint.lastSeen
        } else if accessPoint.lastSeen - recorded >= Self.sightingInterval {
            records.sightings.append(
                .init(network: network, ssid: accessPoint.ssid, security: accessPoint.security, bssid: bssid)
            )
            recorded = accessPoint.lastSeen
        }
        if let old, old.accessPoint.lastSeen == earliestLastSeen {
            isEarliestStale = true
        } else if !isEarliestStale {
            earliestLastSeen = min(earliestLastSeen ?? accessPoint.lastSeen, accessPoint.lastSeen)
        }
        heard[bssid] = Heard(accessPoint: accessPoint, network: network, recorded: recorded)
        members[network, default: []].insert(bssid)
        dirty.insert(network)
    }

    /// Lists the newcomers the cap admits, evicting the networks it chooses for them.
    private mutating func admit(_ newcomers: [DeviceID: [AccessPoint]], now: Duration) {
        isFull = true
        func candidate(_ id: DeviceID, _ points: [AccessPoint]) -> NetworkCapacity.Candidate {
            NetworkCapacity.Candidate(
                id: id,
                lastSeen: points.map(\.lastSeen).max() ?? .zero,
                signal: points.compactMap(\.signal).max()
            )
        }
        let connected = connectedBSSIDs
        let held = members.compactMap { id, bssids -> NetworkCapacity.Candidate? in
            guard !known.contains(id), bssids.isDisjoint(with: connected) else { return nil }
            return candidate(id, bssids.compactMap { heard[$0]?.accessPoint })
        }
        let (admitted, evicted) = capacity.admit(
            newcomers.map { candidate($0.key, $0.value) },
            held: held,
            room: capacity.maximum - members.count,
            now: now
        )
        for id in evicted {
            for bssid in members[id] ?? [] { forget(bssid) }
            members[id] = nil
            dirty.insert(id)
        }
        for id in admitted {
            for accessPoint in newcomers[id] ?? [] { take(accessPoint, network: id) }
        }
    }

    /// Whether a network is listed whatever the cap: a known one, or one this host is connected to.
    private func isProtected(_ network: DeviceID, _ accessPoint: AccessPoint) -> Bool {
        known.contains(network) || accessPoint.isConnected
            || connectedBSSIDs.contains(accessPoint.bssid.lowercased())
    }

    /// The BSSIDs the interfaces that are up are connected to.
    private var connectedBSSIDs: Set<String> {
        Set(interfaces.values.compactMap { $0.isUp ? $0.connection?.bssid.lowercased() : nil })
    }

    private mutating func remove(_ bssid: String, of network: DeviceID) {
        members[network]?.remove(bssid)
        if members[network]?.isEmpty == true { members[network] = nil }
        dirty.insert(network)
    }

    /// Drops an access point held (not its network's membership).
    private mutating func forget(_ bssid: String) {
        guard let old = heard.removeValue(forKey: bssid) else { return }
        if old.accessPoint.lastSeen == earliestLastSeen { isEarliestStale = true }
    }

    /// Computes ``earliestLastSeen`` again if an access point that had it was heard again or left.
    ///
    /// - Complexity: O(p) for the p access points held when it must; O(1) otherwise.
    private mutating func refreshEarliestLastSeen() {
        guard isEarliestStale else { return }
        earliestLastSeen = heard.values.map(\.accessPoint.lastSeen).min()
        isEarliestStale = false
    }

    /// The wireless interfaces as the `config` section shows them, sorted by name.
    public var interfaceStatuses: [WirelessInterfaceStatus] {
        interfaces.values.sorted { $0.name < $1.name }.map { interface in
            WirelessInterfaceStatus(
                id: DeviceID.make(wirelessInterface: interface.name),
                name: interface.name,
                isUp: interface.isUp,
                connection: interface.connection.map { connection in
                    let bssid = connection.bssid.lowercased()
                    let ap = heard[bssid]
                    return WiFiConnectionInfo(
                        network: ap?.network,
                        ssid: connection.ssid ?? ap?.accessPoint.ssid,
                        bssid: bssid,
                        band: WiFiBand(frequency: connection.frequency)
                    )
                }
            )
        }
    }

    /// When the next access point expires, on the table's clock; `nil` if none is held.
    ///
    /// - Complexity: O(1) (kept up to date after every scan and expiry).
    public var nextExpiry: Duration? {
        let earliest = isEarliestStale ? heard.values.map(\.accessPoint.lastSeen).min() : earliestLastSeen
        return earliest.map { $0 + expiry }
    }

    /// Forgets every interface and access point (scanning switched off: the source reports them again when it is
    /// switched on). The baseline stays.
    public mutating func removeAll() {
        interfaces = [:]
        heard = [:]
        members = [:]
        barsByNetwork = [:]
        shown = [:]
        dirty = []
        isFull = false
        earliestLastSeen = nil
        isEarliestStale = false
    }

    /// Drops the access points not heard for ``expiry``.
    ///
    /// - Complexity: O(p) for the p access points held when one expires; O(1) otherwise.
    public mutating func expire(now: Duration) {
        guard let next = nextExpiry, next <= now else { return }
        for (bssid, entry) in heard where now - entry.accessPoint.lastSeen >= expiry {
            forget(bssid)
            remove(bssid, of: entry.network)
        }
        refreshEarliestLastSeen()
        if members.count < capacity.maximum { isFull = false }
    }

    /// Expires what was not heard for ``expiry`` and returns the networks that changed since the last call, with the
    /// log lines and records since then.
    ///
    /// - Complexity: O(c log c + a log a) for the c networks that may have changed and their a access points (plus
    ///   ``expire(now:)``'s).
    public mutating func takeChanges(now: Duration) -> Changes {
        var changes = Changes()
        expire(now: now)
        let connectedBSSIDs = connectedBSSIDs
        var current: [DeviceID: WiFiNetwork] = [:]
        for id in dirty {
            let sorted = (members[id] ?? []).sorted().compactMap { bssid in
                heard[bssid].map { (bssid: bssid, heard: $0) }
            }
            guard let first = sorted.first?.heard.accessPoint else { continue }
            let strongest = sorted.compactMap(\.heard.accessPoint.signal).max()
            let bars = strongest.map { Self.bars(signal: $0, previous: barsByNetwork[id]) } ?? barsByNetwork[id] ?? 0
            barsByNetwork[id] = bars
            current[id] = WiFiNetwork(
                id: id,
                ssid: first.ssid,
                security: first.security,
                accessPoints: sorted.map {
                    WiFiAccessPointInfo(bssid: $0.bssid, frequency: $0.heard.accessPoint.frequency)
                },
                bars: bars,
                isConnected: sorted.contains {
                    // The interfaces' own connections are current; a scan result's flag only until one is reported.
                    interfaces.isEmpty ? $0.heard.accessPoint.isConnected : connectedBSSIDs.contains($0.bssid)
                }
            )
        }
        for id in dirty.sorted() where current[id] == nil {
            guard let old = shown.removeValue(forKey: id) else { continue }
            barsByNetwork[id] = nil
            changes.networks.append((id, nil))
            changes.logs.append(
                LogEntry(
                    .wifiNetworkGone,
                    ["network": id.description, "ssid": old.ssid ?? "", "security": old.security.rawValue]
                )
            )
        }
        for (id, network) in current where shown[id] != network {
            changes.networks.append((id, network))
            shown[id] = network
        }
        changes.networks.sort { $0.id < $1.id }
        dirty = []
        changes.logs = logs + changes.logs
        changes.records = records
        logs = []
        records = WirelessRecords()
        return changes
    }
}
