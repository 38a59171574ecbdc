import PeerScanModel

/// What one batch of the store taught about devices, for the registry: identity changes, then label changes, then
/// the devices inserted or changed, then those that left the snapshot.
public struct DeviceRecords: Sendable, Equatable {
    /// Keys bound, devices merged and forgotten, in order.
    public var identityChanges: [IdentityChange]
    /// The labels changed (after the identity changes), as they are now; ``DeviceLabel/none``: cleared.
    public var labels: [DeviceID: DeviceLabel]
    /// The devices inserted or changed, as they are now.
    public var devices: [Device]
    /// The devices that left the snapshot (gone offline for good, or scanning switched off).
    public var departed: [DeviceID]

    /// Creates the records of a batch.
    public init(
        identityChanges: [IdentityChange] = [],
        labels: [DeviceID: DeviceLabel] = [:],
        devices: [Device] = [],
        departed: [DeviceID] = []
    ) {
        self.identityChanges = identityChanges
        self.labels = labels
        self.devices = devices
        self.departed = departed
    }

    /// Whether the batch taught nothing.
    public var isEmpty: Bool { identityChanges.isEmpty && labels.isEmpty && devices.isEmpty && departed.isEmpty }
}
