import PeerScanModel

/// What people said about devices (``DeviceLabel``), by identifier: the overlay the device table puts on the devices
/// it derives, and the changes since the last take, for the registry.
///
/// A label belongs to the identifier, so it follows the device wherever ``DeviceIdentities`` keeps its identifier
/// (across restarts, new keys, a MAC-only device that starts announcing mDNS). When two devices merge, the survivor
/// keeps its label, or takes the merged device's if it had none (a name and a note are taken one by one; a device is
/// important if either was). The struct does no I/O.
public struct DeviceLabels: Sendable {
    private var labels: [DeviceID: DeviceLabel]
    private var changes: [DeviceID: DeviceLabel] = [:]

    /// Creates the labels from what the registry stored.
    public init(_ labels: [DeviceID: DeviceLabel] = [:]) {
        self.labels = labels.filter { !$0.value.isEmpty }
    }

    /// The label of `id` (``DeviceLabel/none`` if nothing was said).
    /// - Complexity: O(1)
    public func label(of id: DeviceID) -> DeviceLabel { labels[id] ?? .none }

    /// The number of devices with a label.
    public var count: Int { labels.count }

    /// Applies `edit` to the label of `id`.
    /// - Returns: The label now.
    @discardableResult
    mutating func apply(_ edit: DeviceLabelEdit, to id: DeviceID) -> DeviceLabel {
        let label = edit.applied(to: label(of: id))
        set(label, for: id)
        return label
    }

    /// Joins the label of `id` into the survivor's (see the type's description); `id`'s is gone.
    mutating func merge(_ id: DeviceID, into survivor: DeviceID) {
        guard id != survivor, let merged = labels.removeValue(forKey: id) else { return }
        changes[id] = DeviceLabel.none
        var label = label(of: survivor)
        label.name = label.name ?? merged.name
        label.note = label.note ?? merged.note
        label.isImportant = label.isImportant || merged.isImportant
        set(label, for: survivor)
    }

    /// Forgets the label of `id` (the device was forgotten).
    mutating func forget(_ id: DeviceID) {
        guard labels.removeValue(forKey: id) != nil else { return }
        changes[id] = DeviceLabel.none
    }

    /// The labels changed since the last take, as they are now (``DeviceLabel/none``: cleared).
    mutating func takeChanges() -> [DeviceID: DeviceLabel] {
        defer { changes = [:] }
        return changes
    }

    private mutating func set(_ label: DeviceLabel, for id: DeviceID) {
        guard label != self.label(of: id) else { return }
        labels[id] = label.isEmpty ? nil : label
        changes[id] = label
    }
}
