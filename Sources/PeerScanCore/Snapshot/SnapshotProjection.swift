import Diffable
import MonitoringLog
import PeerScanModel

/// How the store's state is shown as a snapshot: the `config` section (the scanning switch, this host, its wireless
/// interfaces by name) and, while scanning is on, the `networks` section with the Wi-Fi networks
/// (``WiFiNetwork/displaysBefore(_:_:)``), then the devices sorted for display (``Device/sortKey``).
///
/// Pure: it edits a snapshot and returns the log lines the edit calls for (`device changed`); the store publishes
/// the result.
enum SnapshotProjection {
    /// The snapshot at start.
    static func initial(isScanning: Bool, host: HostStatus) -> ScanSnapshot {
        var snapshot = ScanSnapshot()
        try! snapshot.appendSections([.config])  // an empty snapshot takes any section and item
        try! snapshot.appendItems([.scanning(enabled: isScanning), .host(host)])
        if isScanning { try! snapshot.appendSections([.networks]) }
        return snapshot
    }

    /// `snapshot` edited to show the switch, the host and the changed devices (`nil`: removed). A device's item is
    /// placed as given, box and all (``DeviceTable/takeChanges(now:)``: the table keeps the same box).
    ///
    /// - Returns: The snapshot (`snapshot` itself when nothing changed) and the log lines of devices whose fields
    ///   changed (coming and going have lines of their own).
    /// - Throws: A ``SnapshotError`` if an edit fails — our own edits of our own snapshot cannot; the caller keeps the
    ///   last good state and says so.
    /// - Complexity: O(c log n) for c changed devices and networks among n (plus O(n) per network inserted, to read
    ///   the section).
    static func edit(
        _ snapshot: ScanSnapshot,
        isScanning: Bool,
        host: HostStatus,
        wirelessInterfaces: [WirelessInterfaceStatus] = [],
        changed: [(id: DeviceID, item: ScanItem?)],
        changedNetworks: [(id: DeviceID, network: WiFiNetwork?)] = []
    ) throws -> (snapshot: ScanSnapshot, logs: [LogEntry]) {
        let configItems =
            [ScanItem.scanning(enabled: isScanning), .host(host)]
            + wirelessInterfaces.map {
                ScanItem.wifiInterface($0)
            }
        if changed.isEmpty && changedNetworks.isEmpty && isScanning == snapshot.contains(section: .networks)
            && snapshot.items(inSection: .config) == configItems
        {
            return (snapshot, [])  // nothing to edit (a presence check that found nothing due, say)
        }
        var next = snapshot
        var logs: [LogEntry] = []
        try next.updateItems([.scanning(enabled: isScanning)])
        if isScanning {
            if !next.contains(section: .networks) { try next.appendSections([.networks]) }
            for (id, network) in changedNetworks { try place(network, id: id, in: &next) }
            for (id, item) in changed {
                if let line = try place(item, id: id, in: &next) { logs.append(line) }
            }
        } else if next.contains(section: .networks) {
            try next.deleteSections([.networks])
        }
        try next.updateItems([.host(host)])
        try placeInterfaces(wirelessInterfaces, in: &next)
        return (next, logs)
    }

    /// Brings the wireless interfaces' items (after the host, sorted by name) up to date.
    private static func placeInterfaces(_ wanted: [WirelessInterfaceStatus], in next: inout ScanSnapshot) throws {
        let present = (next.items(inSection: .config) ?? []).compactMap(\.wifiInterface)
        guard present != wanted else { return }
        let wantedIDs = Set(wanted.map(\.id))
        try next.deleteItems(present.map(\.id).filter { !wantedIDs.contains($0) })
        var previous = DeviceID.host
        for interface in wanted {
            if let old = next.item(withIdentifier: interface.id) {
                if old != .wifiInterface(interface) { try next.updateItems([.wifiInterface(interface)]) }
            } else {
                try next.insertItems([.wifiInterface(interface)], afterItem: previous)
            }
            previous = interface.id
        }
    }

    /// Brings a Wi-Fi network's item up to date: removes it, inserts it at its sorted position among the networks
    /// (before the devices), or updates it in place.
    private static func place(_ network: WiFiNetwork?, id: DeviceID, in next: inout ScanSnapshot) throws {
        let old = next.item(withIdentifier: id)?.wifiNetwork
        guard old != network else { return }
        if let old, let network, old.isConnected == network.isConnected, old.ssid == network.ssid {
            try next.updateItems([.wifiNetwork(network)])  // what it is sorted by is unchanged
            return
        }
        if old != nil { try next.deleteItems([id]) }
        guard let network else { return }
        let items = next.items(inSection: .networks) ?? []
        var low = 0
        var high = items.count
        while low < high {
            let middle = (low + high) / 2
            if let other = items[middle].wifiNetwork, WiFiNetwork.displaysBefore(other, network) {
                low = middle + 1
            } else {
                high = middle
            }
        }
        if low < items.count {
            try next.insertItems([.wifiNetwork(network)], beforeItem: items[low].id)
        } else {
            try next.appendItems([.wifiNetwork(network)], toSection: .networks)
        }
    }

    /// Brings a device's item up to date: removes it, inserts it at its sorted position, or updates it in place.
    /// - Returns: The `device changed` line, if its fields (other than presence) changed.
    private static func place(_ item: ScanItem?, id: DeviceID, in next: inout ScanSnapshot) throws -> LogEntry? {
        let old = next.item(withIdentifier: id)?.device
        let device = item?.device
        guard old != device else { return nil }
        if let old, let device, let item, old.sortKey == device.sortKey {
            try next.updateItems([item])  // the sort key is unchanged
        } else {
            if old != nil { try next.deleteItems([id]) }
            if let device, let item {
                let devices = next.items(inSection: .networks) ?? []
                let index = insertionIndex(of: device, in: devices)
                if index < devices.count {
                    try next.insertItems([item], beforeItem: devices[index].id)
                } else {
                    try next.appendItems([item], toSection: .networks)
                }
            }
        }
        guard let old, let device else { return nil }
        let fields = Device.changedFields(from: old, to: device).filter { $0 != "online" }
        guard !fields.isEmpty else { return nil }
        var metadata = device.logFields
        metadata["fields"] = fields.joined(separator: ",")
        return LogEntry(.deviceChanged, metadata)
    }

    /// Where a device goes among the sorted devices (``Device/sortKey``).
    /// - Complexity: O(log n)
    static func insertionIndex(of device: Device, in items: [ScanItem]) -> Int {
        let key = device.sortKey
        var low = 0
        var high = items.count
        while low < high {
            let middle = (low + high) / 2
            let isBefore: Bool =
                switch items[middle] {
                case .wifiNetwork: true  // the networks come first
                case .device(let other): other.sortKey < key
                default: false
                }
            if isBefore { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
