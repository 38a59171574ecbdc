import PeerScanModel

/// The devices the table publishes: each one's item as published, and the origin that derives it (an mDNS host, a MAC
/// address, a Bluetooth identity), both ways. One origin derives one device and one device has one origin; an origin
/// that derived a device another origin took over keeps no claim on it.
struct PublishedDevices: Sendable {
    private var items: [DeviceID: ScanItem] = [:]
    private var origins: [DeviceID: DeviceTable.Origin] = [:]
    private var ids: [DeviceTable.Origin: DeviceID] = [:]

    /// The number of devices published.
    var count: Int { items.count }

    /// The identifiers of the devices published.
    var allIDs: Dictionary<DeviceID, ScanItem>.Keys { items.keys }

    /// `id`'s item as published (the snapshot's own box), or `nil`.
    subscript(id: DeviceID) -> ScanItem? { items[id] }

    /// `id`'s device as published, or `nil`.
    func device(_ id: DeviceID) -> Device? { items[id]?.device }

    /// The origin that derives `id`'s device, or `nil`.
    func origin(of id: DeviceID) -> DeviceTable.Origin? { origins[id] }

    /// The device `origin` derives, or `nil`.
    func id(of origin: DeviceTable.Origin) -> DeviceID? { ids[origin] }

    /// Publishes `item` as `id`'s, derived by `origin`. An origin that derived `id` before gives it up (taken over:
    /// a host takes its MAC-only device's item), unless it derives another device already.
    /// - Complexity: O(1).
    mutating func publish(_ item: ScanItem, id: DeviceID, origin: DeviceTable.Origin) {
        if let holder = origins[id], holder != origin, ids[holder] == id { ids[holder] = nil }
        items[id] = item
        origins[id] = origin
        ids[origin] = id
    }

    /// Takes what `origin` derives out: its device's identifier and item, or `nil` when it derives none, or when the
    /// device is another origin's now (then only `origin`'s claim goes).
    /// - Complexity: O(1).
    mutating func withdraw(_ origin: DeviceTable.Origin) -> (id: DeviceID, item: ScanItem)? {
        guard let id = ids.removeValue(forKey: origin), origins[id] == origin, let item = items.removeValue(forKey: id)
        else { return nil }
        origins[id] = nil
        return (id, item)
    }

    /// Takes `id`'s device out, whichever origin derives it.
    /// - Returns: Its origin and item as published, or `nil` if it was not published.
    /// - Complexity: O(1).
    mutating func remove(_ id: DeviceID) -> (origin: DeviceTable.Origin, item: ScanItem)? {
        guard let origin = origins.removeValue(forKey: id), let item = items.removeValue(forKey: id) else { return nil }
        if ids[origin] == id { ids[origin] = nil }
        return (origin, item)
    }

    /// Drops `id`'s item but keeps its origin: the origin's next derivation publishes it as a new device.
    mutating func dropItem(of id: DeviceID) { items[id] = nil }

    /// `origin`'s device is derived by `replacement` from now on (a Bluetooth advertiser whose address an IRK now
    /// resolves to the same device).
    /// - Complexity: O(1).
    mutating func move(_ origin: DeviceTable.Origin, to replacement: DeviceTable.Origin) {
        guard let id = ids.removeValue(forKey: origin) else { return }
        ids[replacement] = id
        origins[id] = replacement
    }

    /// Takes every device out.
    /// - Returns: Their identifiers.
    mutating func removeAll() -> [DeviceID] {
        defer {
            items = [:]
            origins = [:]
            ids = [:]
        }
        return Array(items.keys)
    }
}
