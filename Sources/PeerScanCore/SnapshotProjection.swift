import Diffable
import MonitoringLog
import PeerScanModel

/// How the store's state is shown as a snapshot: the `config` section (the scanning switch, this host) and, while
/// scanning is on, the `networks` section with the devices sorted for display (``Device/sortKey``).
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

    /// `snapshot` edited to show the switch, the host and the changed devices (`nil`: removed).
    ///
    /// - Returns: The snapshot (`snapshot` itself when nothing changed) and the log lines of devices whose fields
    ///   changed (coming and going have lines of their own).
    /// - Throws: A ``SnapshotError`` if an edit fails — our own edits of our own snapshot cannot; the caller keeps the
    ///   last good state and says so.
    /// - Complexity: O(c log n) for c changed devices among n.
    static func edit(
        _ snapshot: ScanSnapshot,
        isScanning: Bool,
        host: HostStatus,
        changed: [(id: DeviceID, device: Device?)]
    ) throws -> (snapshot: ScanSnapshot, logs: [LogEntry]) {
        if changed.isEmpty && isScanning == snapshot.contains(section: .networks)
            && snapshot.item(withIdentifier: DeviceID.scanning) == .scanning(enabled: isScanning)
            && snapshot.item(withIdentifier: DeviceID.host) == .host(host)
        {
            return (snapshot, [])  // nothing to edit (a presence check that found nothing due, say)
        }
        var next = snapshot
        var logs: [LogEntry] = []
        try next.updateItems([.scanning(enabled: isScanning)])
        if isScanning {
            if !next.contains(section: .networks) { try next.appendSections([.networks]) }
            for (id, device) in changed {
                if let line = try place(device, id: id, in: &next) { logs.append(line) }
            }
        } else if next.contains(section: .networks) {
            try next.deleteSections([.networks])
        }
        try next.updateItems([.host(host)])
        return (next, logs)
    }

    /// Brings a device's item up to date: removes it, inserts it at its sorted position, or updates it in place.
    /// - Returns: The `device changed` line, if its fields (other than presence) changed.
    private static func place(_ device: Device?, id: DeviceID, in next: inout ScanSnapshot) throws -> LogEntry? {
        let old = next.item(withIdentifier: id)?.device
        guard old != device else { return nil }
        if let old, let device, old.sortKey == device.sortKey {
            try next.updateItems([.device(device)])  // the sort key is unchanged
        } else {
            if old != nil { try next.deleteItems([id]) }
            if let device {
                let devices = next.items(inSection: .networks) ?? []
                let index = insertionIndex(of: device, in: devices)
                if index < devices.count {
                    try next.insertItems([.device(device)], beforeItem: devices[index].id)
                } else {
                    try next.appendItems([.device(device)], toSection: .networks)
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
            if let other = items[middle].device?.sortKey, other < key { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
