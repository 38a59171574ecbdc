import Discovery
import MonitoringLog
import NetworkInterfaces
import PeerScanModel

// What the tables peerscand keeps already know, counted for ``SystemLimitCheck``.

extension MDNSHostTable {
    /// The service instances (found or resolved) and the address records followed, per Avahi cache (interface and IP
    /// protocol).
    /// - Complexity: O(r + a) for r instances and a address records.
    func cacheCounts(into counts: inout SystemLimitCounts) {
        func count(_ key: ServiceInstanceKey) {
            let cache = SystemLimitCounts.CacheKey(interface: key.interface, ipProtocol: key.ipProtocol)
            counts.services[cache, default: 0] += 1
        }
        for key in rows.keys { count(key) }
        for key in pendingRows where rows[key] == nil { count(key) }
        for records in addressRecords.values {
            for record in records {
                counts.addressRecords[
                    SystemLimitCounts.CacheKey(interface: record.interface, ipProtocol: record.ipProtocol),
                    default: 0
                ] += 1
            }
        }
    }
}

extension DeviceTable {
    /// The kernel's neighbour entries seen, per IP protocol (an IPv6 address has a colon, an IPv4 one none).
    /// - Complexity: O(n) for n entries.
    func neighbourCounts(into counts: inout SystemLimitCounts) {
        for address in addressBook.entryAddresses {
            counts.neighbourEntries[address.contains(":") ? .ipv6 : .ipv4, default: 0] += 1
        }
    }

    /// The Bluetooth devices listed against `--bluetooth-max-devices`.
    /// - Complexity: O(1)
    var bluetoothCap: SystemLimitCounts.Cap {
        let fill = bluetoothFill
        return .init(count: fill.count, maximum: bluetooth.settings.maxDevices, isFull: fill.isFull)
    }
}

/// The system limits reached now, and which of them were logged already: each is logged once, the first time it is
/// reached (`system limit reached`, at warning), however often the count then dips under it and reaches it again.
struct SystemLimitTracker: Sendable {
    let check: SystemLimitCheck
    /// Whether the tables changed since the last ``refresh(_:table:devices:logs:)``: set by the store on every input
    /// that can change a count (so that a batch that cannot costs nothing).
    var countsChanged = false
    /// The datagrams of the last probe round the kernel had no room for (``StoreInput/probeNoRoom(_:)``).
    var neighbourNoRoom: [IPProtocol: Int] = [:]
    /// peerscand's own caps as last noted (``note(_:in:)``).
    var bluetoothDevices: SystemLimitCounts.Cap?
    var wifiNetworks: SystemLimitCounts.Cap?
    private var logged: Set<String> = []

    init(settings: SystemLimitSettings) {
        check = SystemLimitCheck(settings: settings)
    }

    /// Notes how full one of peerscand's own caps is: the counts changed if what the report shows did — whether it
    /// is full, and while it is, its count (a count under the cap shows nowhere, so its changes cost no refresh).
    mutating func note(_ cap: SystemLimitCounts.Cap, in noted: WritableKeyPath<Self, SystemLimitCounts.Cap?>) {
        let shown = cap.isFull ? cap : SystemLimitCounts.Cap(count: 0, maximum: cap.maximum, isFull: false)
        guard self[keyPath: noted] != shown else { return }
        self[keyPath: noted] = shown
        countsChanged = true
    }

    /// The limits reached by `counts`, and the log lines of those reached for the first time.
    mutating func update(_ counts: SystemLimitCounts) -> (reached: [SystemLimit], logs: [LogEntry]) {
        let reached = check.reached(counts)
        let logs = reached.filter { logged.insert($0.name).inserted }.map { limit in
            var metadata = [
                "limit": limit.name, "value": "\(limit.value)", "setting": limit.setting,
                "estimate": "\(limit.isEstimate)",
            ]
            for ipProtocol in IPProtocol.allCases where limit.name == SystemLimitCheck.neighbourTableName(ipProtocol) {
                metadata["enobufs"] = "\(counts.neighbourNoRoom[ipProtocol, default: 0])"
            }
            return LogEntry(.systemLimitReached, metadata)
        }
        return (reached, logs)
    }

    /// If the counts may have changed: sets the `host` item's limits to those reached by what the tables follow now,
    /// and appends the log lines of those reached for the first time.
    /// - Complexity: O(r + a + n) when the counts changed (the tables' instances, address records and neighbour
    ///   entries); O(1) otherwise.
    mutating func refresh(
        _ host: inout HostStatus,
        table: MDNSHostTable,
        devices: DeviceTable,
        logs: inout [LogEntry]
    ) {
        guard countsChanged else { return }
        countsChanged = false
        var counts = SystemLimitCounts()
        table.cacheCounts(into: &counts)
        devices.neighbourCounts(into: &counts)
        counts.neighbourNoRoom = neighbourNoRoom
        counts.bluetoothDevices = bluetoothDevices
        counts.wifiNetworks = wifiNetworks
        let (reached, newLogs) = update(counts)
        host.limits = reached
        logs += newLogs
    }
}
