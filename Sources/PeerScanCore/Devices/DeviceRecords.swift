import PeerScanModel

/// What one batch of the store taught about devices, for the registry: identity changes, then label changes, then
/// the devices inserted or changed, then those that left the snapshot.
public struct DeviceRecords: Sendable, Equatable {
    /// Keys bound, devices merged and forgotten, in order.
    public var identityChanges: [IdentityChange]
    /// The labels changed (after the identity changes), as they are now; ``DeviceLabel/none``: cleared.
    public var labels: [DeviceID: DeviceLabel]
    /// The Bluetooth IRKs bound (or removed: `nil`) by a person or moved by a merge, by device. Secret: never logged.
    public var irks: [DeviceID: IdentityResolvingKey?]
    /// The devices inserted or changed, as they are now (never an ephemeral Bluetooth device).
    public var devices: [Device]
    /// The devices that left the snapshot (gone offline for good, or scanning switched off).
    public var departed: [DeviceID]

    /// Creates the records of a batch.
    public init(
        identityChanges: [IdentityChange] = [],
        labels: [DeviceID: DeviceLabel] = [:],
        irks: [DeviceID: IdentityResolvingKey?] = [:],
        devices: [Device] = [],
        departed: [DeviceID] = []
    ) {
        self.identityChanges = identityChanges
        self.labels = labels
        self.irks = irks
        self.devices = devices
        self.departed = departed
    }

    /// Whether the batch taught nothing.
    public var isEmpty: Bool {
        identityChanges.isEmpty && labels.isEmpty && irks.isEmpty && devices.isEmpty && departed.isEmpty
    }
}
