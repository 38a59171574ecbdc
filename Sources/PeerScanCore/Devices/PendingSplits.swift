// What a person's splits leave for the device table's next take: the devices taken out of the published ones until
// their origins derive them again, and the new devices of the keys split off. A value the table owns; the split is in
// DeviceTable+Merging.swift, publishing in DeviceTable+Publishing.swift, the take in DeviceTable.swift ends it.

import PeerScanModel

/// The splits since the last take: each device a split took out of the published ones, with its item as it was
/// (published again at the next take: an update, not a new device), and the new devices of the keys split off (no
/// presence line: ``DeviceTable/Event/split(_:from:into:)`` says it).
///
/// ## Performance
/// Every operation is O(1) but ``removeAll()``, O(n) for n entries.
struct PendingSplits: Sendable {
    private var displaced: [DeviceID: ScanItem] = [:]
    private var splitOff: Set<DeviceID> = []

    /// Notes that a split took `id`, published as `item`, out of the published ones.
    mutating func displace(_ id: DeviceID, item: ScanItem) { displaced[id] = item }

    /// Notes `id` as the new device of a key split off.
    mutating func noteSplitOff(_ id: DeviceID) { splitOff.insert(id) }

    /// The item `id` was published as before a split took it out, if one did; forgotten (it is published again).
    mutating func takeDisplaced(_ id: DeviceID) -> ScanItem? { displaced.removeValue(forKey: id) }

    /// Whether `id` is the new device of a key split off; forgotten (it is published now).
    mutating func takeSplitOff(_ id: DeviceID) -> Bool { splitOff.remove(id) != nil }

    /// Forgets every split (the take is over: a device displaced and not published again stays removed).
    mutating func removeAll() {
        displaced = [:]
        splitOff = []
    }
}
