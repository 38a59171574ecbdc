import Foundation

/// What the daemon remembers of a device, present or not, as its registry reports it: times are `Date`s. The wire
/// form is ``PeerScanWire/KnownDevice`` (made by `PeerScanWire.KnownDevice(_:)`, which formats the times).
public struct KnownDeviceRecord: Sendable, Hashable {
    /// One value the device was seen with (a host name, a MAC address, an address), and when.
    public struct Sighting: Sendable, Hashable {
        /// The value.
        public var value: String
        /// When the device was first seen with it.
        public var firstSeen: Date
        /// When the device was last seen with it.
        public var lastSeen: Date

        /// Creates a sighting.
        public init(value: String, firstSeen: Date, lastSeen: Date) {
            self.value = value
            self.firstSeen = firstSeen
            self.lastSeen = lastSeen
        }
    }

    /// The device's identifier: the item's, while it is in the snapshot.
    public var id: DeviceID
    /// The display name (or host name) it was last seen with; `nil` for a device known only by MAC address.
    public var name: String?
    /// Whether the device is in the snapshot now.
    public var present: Bool
    /// Whether it is in the snapshot and online.
    public var online: Bool
    /// When it was first seen.
    public var firstSeen: Date
    /// When it was last seen answering: now, for a device online now.
    public var lastSeen: Date
    /// The vendor of its first MAC address.
    public var vendor: String?
    /// Every host name it announced, sorted by value.
    public var hostNames: [Sighting]
    /// Every MAC address it answered with, sorted by value.
    public var macAddresses: [Sighting]
    /// Every address it had, sorted by value.
    public var addresses: [Sighting]
    /// Its presence transitions, oldest first (the registry keeps ``PresenceTransition/retention`` of them); empty in
    /// a list of every device.
    public var transitions: [PresenceTransition]
    /// What a person said about it (``DeviceLabel/none`` if nothing).
    public var label: DeviceLabel

    /// Creates a record.
    public init(
        id: DeviceID,
        name: String?,
        present: Bool,
        online: Bool,
        firstSeen: Date,
        lastSeen: Date,
        vendor: String?,
        hostNames: [Sighting],
        macAddresses: [Sighting],
        addresses: [Sighting],
        transitions: [PresenceTransition] = [],
        label: DeviceLabel = .none
    ) {
        self.id = id
        self.name = name
        self.present = present
        self.online = online
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
        self.vendor = vendor
        self.hostNames = hostNames
        self.macAddresses = macAddresses
        self.addresses = addresses
        self.transitions = transitions
        self.label = label
    }
}

/// A device went online or offline, and why.
public struct PresenceTransition: Sendable, Hashable {
    /// How long the registry keeps transitions, and how many per device at the most.
    public static let retention: (age: TimeInterval, count: Int) = (30 * 24 * 3600, 1000)

    /// When.
    public var at: Date
    /// Whether it went online (`true`) or offline.
    public var online: Bool
    /// Why (see ``Device/presenceReason``); `nil` if the daemon did not say.
    public var reason: PresenceReason?

    /// Creates a transition.
    public init(at: Date, online: Bool, reason: PresenceReason?) {
        self.at = at
        self.online = online
        self.reason = reason
    }
}
