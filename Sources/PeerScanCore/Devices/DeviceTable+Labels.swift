// The device table's labels: a person names a device, notes something about it, marks it important.

import PeerScanModel

extension DeviceTable {
    /// Applies a person's `edit` to the label of `id`; the device, if published, shows it at the next take.
    ///
    /// - Returns: The label now, or `nil` if no device has this identifier (none published, no key bound to it).
    /// - Complexity: O(1)
    public mutating func setLabel(_ edit: DeviceLabelEdit, of id: DeviceID) -> DeviceLabel? {
        guard isKnown(id) else { return nil }
        let label = labels.apply(edit, to: id)
        if let origin = published.origin(of: id) { markForDerivation(origin) }
        return label
    }
}
