import NetworkInterfaces
import PeerScanModel

/// The limits of the system that bound what peerscan can see, as peerscand read them at start.
///
/// - Avahi's cache: `cache-entries-max` in avahi-daemon.conf (4,096 records per interface and IP protocol by default).
/// - The kernel's neighbour table: `gc_thresh3` per IP protocol (1,024 entries by default); past it the kernel
///   refuses new entries (`neighbour table overflow`, `ENOBUFS`).
///
/// peerscand's own caps (the Bluetooth devices and the Wi-Fi networks listed) are reported the same way: they come with
/// their counts.
public struct SystemLimitSettings: Sendable, Equatable {
    /// Avahi's default `cache-entries-max`.
    public static let defaultCacheEntriesMax = 4096
    /// The kernel's default `gc_thresh3`.
    public static let defaultNeighbourTableMax = 1024

    /// Avahi's `cache-entries-max`: records per interface and IP protocol.
    public var cacheEntriesMax: Int
    /// The kernel's `gc_thresh3` for each IP protocol.
    public var neighbourTableMax: [IPProtocol: Int]

    /// Creates the settings; by default those of a stock system.
    public init(
        cacheEntriesMax: Int = defaultCacheEntriesMax,
        neighbourTableMax: [IPProtocol: Int] = [.ipv4: defaultNeighbourTableMax, .ipv6: defaultNeighbourTableMax]
    ) {
        self.cacheEntriesMax = cacheEntriesMax
        self.neighbourTableMax = neighbourTableMax
    }
}

/// What peerscand follows that fills the system's tables: the input of ``SystemLimitCheck``.
public struct SystemLimitCounts: Sendable, Equatable {
    /// One of Avahi's caches: an interface and the IP protocol the records were received over.
    public struct CacheKey: Hashable, Sendable, Comparable {
        public var interface: String
        public var ipProtocol: IPProtocol

        public init(interface: String, ipProtocol: IPProtocol) {
            self.interface = interface
            self.ipProtocol = ipProtocol
        }

        public static func < (lhs: Self, rhs: Self) -> Bool {
            (lhs.interface, lhs.ipProtocol.rawValue) < (rhs.interface, rhs.ipProtocol.rawValue)
        }
    }

    /// The service instances followed in each cache (found or resolved).
    public var services: [CacheKey: Int]
    /// The address records followed in each cache.
    public var addressRecords: [CacheKey: Int]
    /// The kernel's neighbour entries seen, by IP protocol.
    public var neighbourEntries: [IPProtocol: Int]
    /// The datagrams of the last probe round the kernel had no room for (`ENOBUFS`), by IP protocol.
    public var neighbourNoRoom: [IPProtocol: Int]
    /// The Bluetooth devices listed against peerscand's own cap (`--bluetooth-max-devices`), if counted.
    public var bluetoothDevices: Cap?
    /// The Wi-Fi networks listed against peerscand's own cap (`--wifi-networks-max`), if counted.
    public var wifiNetworks: Cap?

    /// How full one of peerscand's own caps is.
    public struct Cap: Sendable, Equatable {
        /// The entries listed.
        public var count: Int
        /// The most listed at once (the option's value).
        public var maximum: Int
        /// Whether one more came while ``maximum`` were listed (another entry went, or it was not listed).
        public var isFull: Bool

        public init(count: Int, maximum: Int, isFull: Bool) {
            self.count = count
            self.maximum = maximum
            self.isFull = isFull
        }
    }

    /// Creates counts.
    public init(
        services: [CacheKey: Int] = [:],
        addressRecords: [CacheKey: Int] = [:],
        neighbourEntries: [IPProtocol: Int] = [:],
        neighbourNoRoom: [IPProtocol: Int] = [:],
        bluetoothDevices: Cap? = nil,
        wifiNetworks: Cap? = nil
    ) {
        self.services = services
        self.addressRecords = addressRecords
        self.neighbourEntries = neighbourEntries
        self.neighbourNoRoom = neighbourNoRoom
        self.bluetoothDevices = bluetoothDevices
        self.wifiNetworks = wifiNetworks
    }
}

/// Which of the system's limits the network reached: a pure computation from ``SystemLimitCounts``.
///
/// avahi-daemon gives no signal when its cache is full, so the cache's fill is an estimate: three records per service
/// instance (PTR, SRV, TXT) plus each host's address records, per interface and IP protocol. The estimate counts only
/// what peerscand follows, and that is in the cache, so it never exceeds the cache's real fill; the cache also holds
/// records peerscand does not follow (a PTR per service type, NSEC records, records of hosts without services), so a
/// full cache is one whose estimate is within ``cacheMarginDivisor`` (1/50: 2 %) of `cache-entries-max`. Measured on
/// the stress LAN (Debian's stock avahi-daemon, 4,096): the cache stopped at 1,168 services on 293 hosts with an A and
/// an AAAA record each, an estimate of 3 × 1,168 + 586 = 4,090 (reached: ≥ 4,015); with everything followed, 1,120
/// services on 280 hosts are 3,920 (not reached).
///
/// The neighbour table's count is the kernel's entries peerscand sees for the protocol, reached at `gc_thresh3`. As the
/// limit is global across network namespaces (and the kernel's count also holds entries peerscand does not see: other
/// namespaces', failed ones), the table is also full when the last probe round had datagrams the kernel had no room
/// for (`ENOBUFS`, ``SystemLimitCounts/neighbourNoRoom``), whatever the count; the limit's value is then still the
/// count seen. In a network namespace other than the host's (a container, the test LAN) `gc_thresh3` cannot be read
/// (the kernel shows it in the host's only): the count is not checked, ENOBUFS still is, and the setting is named
/// without a value.
///
/// ## Performance
/// ``reached(_:)`` is O(c log c) for c caches and protocols counted.
public struct SystemLimitCheck: Sendable, Equatable {
    /// Records a service instance takes in Avahi's cache: its PTR, SRV and TXT records.
    public static let recordsPerService = 3
    /// The margin of the cache's estimate: a cache counts as full when its estimate reaches `cache-entries-max` less
    /// `cache-entries-max / cacheMarginDivisor` (the records it holds that peerscand does not follow).
    public static let cacheMarginDivisor = 50

    /// The limits checked against.
    public var settings: SystemLimitSettings

    /// The name of a neighbour table's limit, e.g. `neighbour-table ipv4`.
    public static func neighbourTableName(_ ipProtocol: IPProtocol) -> String {
        "neighbour-table \(ipProtocol.rawValue)"
    }

    /// The name of the Wi-Fi networks' cap.
    public static let wifiNetworksName = "wifi-networks"

    /// Creates a check against `settings`.
    public init(settings: SystemLimitSettings) {
        self.settings = settings
    }

    /// The limits reached, Avahi's caches first (by interface, then protocol), then the neighbour tables (IPv4,
    /// IPv6), then peerscand's own caps (`bluetooth-devices`, `wifi-networks`: reached when one more came while the cap
    /// was listed).
    ///
    /// - Parameter counts: What peerscand follows now.
    /// - Returns: One ``SystemLimit`` per limit the count reaches (a count equal to the limit counts as reached: the
    ///   table is full; for Avahi's cache, within the margin; for a neighbour table, also any datagram the kernel had
    ///   no room for: see the type's documentation).
    /// - Complexity: O(c log c), c the number of caches and protocols in `counts`.
    public func reached(_ counts: SystemLimitCounts) -> [SystemLimit] {
        var limits: [SystemLimit] = []
        let cacheFull = settings.cacheEntriesMax - settings.cacheEntriesMax / Self.cacheMarginDivisor
        let caches = Set(counts.services.keys).union(counts.addressRecords.keys).sorted()
        for cache in caches {
            let records =
                Self.recordsPerService * counts.services[cache, default: 0] + counts.addressRecords[cache, default: 0]
            if records >= cacheFull {
                limits.append(
                    SystemLimit(
                        name: "avahi-cache \(cache.interface) \(cache.ipProtocol.rawValue)",
                        value: records,
                        setting: "cache-entries-max=\(settings.cacheEntriesMax)"
                    )
                )
            }
        }
        for ipProtocol in IPProtocol.allCases {
            let maximum = settings.neighbourTableMax[ipProtocol]
            let entries = counts.neighbourEntries[ipProtocol, default: 0]
            let isFull = maximum.map { entries >= $0 } ?? false
            guard isFull || counts.neighbourNoRoom[ipProtocol, default: 0] > 0 else { continue }
            let setting = "net.\(ipProtocol.rawValue).neigh.default.gc_thresh3"
            limits.append(
                SystemLimit(
                    name: Self.neighbourTableName(ipProtocol),
                    value: entries,
                    setting: maximum.map { "\(setting)=\($0)" } ?? setting
                )
            )
        }
        let caps = [
            ("bluetooth-devices", "--bluetooth-max-devices", counts.bluetoothDevices),
            (Self.wifiNetworksName, "--wifi-networks-max", counts.wifiNetworks),
        ]
        for case (let name, let option, let cap?) in caps where cap.isFull {
            limits.append(SystemLimit(name: name, value: cap.count, setting: "\(option)=\(cap.maximum)"))
        }
        return limits
    }
}
