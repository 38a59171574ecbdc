import Foundation

/// The `io.peerscan` Varlink interface: its name, definition and the parameters and replies of its methods, shared
/// by the daemon and its clients.
public enum PeerScanWire {
    /// The interface name.
    public static let interfaceName = "io.peerscan"

    /// The default socket path.
    public static let defaultSocketPath = "/run/peerscan/io.peerscan"

    /// `GetSnapshot()` reply, and `Monitor` without `more`.
    public struct SnapshotReply: Codable, Sendable {
        public var epoch: String
        public var sequence: UInt64
        public var snapshot: ScanSnapshot
        /// Creates a reply.
        public init(epoch: String, sequence: UInt64, snapshot: ScanSnapshot) {
            self.epoch = epoch
            self.sequence = sequence
            self.snapshot = snapshot
        }
    }

    /// `Monitor(epoch:since:)` parameters.
    public struct MonitorParameters: Codable, Sendable {
        public var epoch: String?
        public var since: UInt64?
        /// Creates parameters.
        public init(epoch: String? = nil, since: UInt64? = nil) {
            self.epoch = epoch
            self.since = since
        }

        private enum CodingKeys: String, CodingKey { case epoch, since }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            epoch = try container.decodeIfPresent(String.self, forKey: .epoch)
            // A negative or fractional number is reported by the decoder without a coding path: name it here.
            do {
                since = try container.decodeIfPresent(UInt64.self, forKey: .since)
            } catch {
                throw DecodingError.dataCorruptedError(
                    forKey: .since,
                    in: container,
                    debugDescription: "since must be a sequence number (0 or more)"
                )
            }
        }
    }

    /// One `Monitor` reply: a snapshot (first, or on resync) or a changeset.
    public struct MonitorReply: Codable, Sendable {
        public var epoch: String
        public var sequence: UInt64
        public var snapshot: ScanSnapshot?
        public var changes: ScanChangeset?
        public var resync: Bool?
        /// Creates a reply.
        public init(
            epoch: String,
            sequence: UInt64,
            snapshot: ScanSnapshot? = nil,
            changes: ScanChangeset? = nil,
            resync: Bool? = nil
        ) {
            self.epoch = epoch
            self.sequence = sequence
            self.snapshot = snapshot
            self.changes = changes
            self.resync = resync
        }
    }

    /// `SetScanning(enabled:)` parameters.
    public struct SetScanningParameters: Codable, Sendable {
        public var enabled: Bool
        /// Creates parameters.
        public init(enabled: Bool) { self.enabled = enabled }
    }

    /// `SetScanning` reply.
    public struct SetScanningReply: Codable, Sendable {
        public var sequence: UInt64
        /// Creates a reply.
        public init(sequence: UInt64) { self.sequence = sequence }
    }

    /// The error a caller without the right to switch scanning gets.
    public static let permissionDeniedError = "io.peerscan.PermissionDenied"

    /// The error of GetDevice and ForgetDevice for an identifier the daemon does not know.
    public static let deviceNotFoundError = "io.peerscan.DeviceNotFound"

    /// The error of MergeDevices for devices that cannot be merged.
    public static let cannotMergeError = "io.peerscan.CannotMerge"

    /// The error of SplitDevice for a key that cannot be split off the device.
    public static let cannotSplitError = "io.peerscan.CannotSplit"

    /// An error reply of io.peerscan: its qualified name and its parameters, as Varlink sends them.
    public struct ErrorReply: Sendable, Hashable {
        /// The qualified error name, e.g. `io.peerscan.DeviceNotFound`.
        public var name: String
        /// The error's parameters.
        public var parameters: [String: String]

        /// `PermissionDenied`: the caller may not switch scanning or forget devices, and why.
        public static func permissionDenied(reason: String) -> ErrorReply {
            ErrorReply(name: permissionDeniedError, parameters: ["reason": reason])
        }

        /// `CannotMerge`: the devices cannot be merged, and why.
        public static func cannotMerge(reason: String) -> ErrorReply {
            ErrorReply(name: cannotMergeError, parameters: ["reason": reason])
        }

        /// `CannotSplit`: the key cannot be split off the device, and why.
        public static func cannotSplit(reason: String) -> ErrorReply {
            ErrorReply(name: cannotSplitError, parameters: ["reason": reason])
        }

        /// `DeviceNotFound`: no device has this id.
        public static func deviceNotFound(id: DeviceID) -> ErrorReply {
            ErrorReply(name: deviceNotFoundError, parameters: ["id": id.description])
        }
    }

    /// One value a device was seen with (a host name, a MAC address, an address) and when, as RFC 3339 UTC text.
    public struct Sighting: Codable, Sendable, Hashable {
        /// The value.
        public var value: String
        /// When the device was first seen with it.
        public var firstSeen: String
        /// When the device was last seen with it.
        public var lastSeen: String

        /// Creates a sighting.
        public init(value: String, firstSeen: String, lastSeen: String) {
            self.value = value
            self.firstSeen = firstSeen
            self.lastSeen = lastSeen
        }
    }

    /// What the daemon remembers of a device, present or not.
    public struct KnownDevice: Codable, Sendable, Hashable {
        /// The device's identifier: the item's, while it is in the snapshot.
        public var id: DeviceID
        /// The display name (or host name) it was last seen with; `nil` for a device known only by MAC address.
        public var name: String?
        /// Whether the device is in the snapshot now.
        public var present: Bool
        /// Whether it is in the snapshot and online.
        public var online: Bool
        /// When it was first seen (RFC 3339 UTC).
        public var firstSeen: String
        /// When it was last seen answering (RFC 3339 UTC): now, for a device online now.
        public var lastSeen: String
        /// The vendor of its first MAC address.
        public var vendor: String?
        /// Every host name it announced.
        public var hostNames: [Sighting]
        /// Every MAC address it answered with.
        public var macAddresses: [Sighting]
        /// Every address it had.
        public var addresses: [Sighting]
        /// The name a person gave it (`peerscanctl set --name`), if any.
        public var label: String?
        /// A person's note about it, if any.
        public var note: String?
        /// Whether a person marked it important.
        public var important: Bool

        /// Creates a known device.
        public init(
            id: DeviceID,
            name: String?,
            present: Bool,
            online: Bool,
            firstSeen: String,
            lastSeen: String,
            vendor: String?,
            hostNames: [Sighting],
            macAddresses: [Sighting],
            addresses: [Sighting],
            label: String? = nil,
            note: String? = nil,
            important: Bool = false
        ) {
            self.label = label
            self.note = note
            self.important = important
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
        }

        private enum CodingKeys: String, CodingKey {
            case id, name, present, online, firstSeen, lastSeen, vendor, hostNames, macAddresses, addresses, label, note
            case important
        }

        /// Decodes a known device; one from a peerscand without labels (no `important`) is not important.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(DeviceID.self, forKey: .id)
            name = try container.decodeIfPresent(String.self, forKey: .name)
            present = try container.decode(Bool.self, forKey: .present)
            online = try container.decode(Bool.self, forKey: .online)
            firstSeen = try container.decode(String.self, forKey: .firstSeen)
            lastSeen = try container.decode(String.self, forKey: .lastSeen)
            vendor = try container.decodeIfPresent(String.self, forKey: .vendor)
            hostNames = try container.decode([Sighting].self, forKey: .hostNames)
            macAddresses = try container.decode([Sighting].self, forKey: .macAddresses)
            addresses = try container.decode([Sighting].self, forKey: .addresses)
            label = try container.decodeIfPresent(String.self, forKey: .label)
            note = try container.decodeIfPresent(String.self, forKey: .note)
            important = try container.decodeIfPresent(Bool.self, forKey: .important) ?? false
        }
    }

    /// The parameters of GetDevice and ForgetDevice.
    public struct DeviceParameters: Codable, Sendable {
        /// The device's identifier.
        public var id: String

        /// Creates the parameters.
        public init(id: String) { self.id = id }
    }

    /// A presence transition: when (RFC 3339, UTC), whether the device went online or offline, and why (the item's
    /// `presenceReason` then).
    public struct Transition: Codable, Sendable, Hashable {
        public var at: String
        public var online: Bool
        public var reason: String?

        /// Creates a transition.
        public init(at: String, online: Bool, reason: String?) {
            self.at = at
            self.online = online
            self.reason = reason
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(at, forKey: .at)
            try container.encode(online, forKey: .online)
            try container.encode(reason, forKey: .reason)  // null, not absent: the IDL declares it
        }
    }

    /// The reply of GetDevice: what the daemon remembers of the device, its presence transitions, and its item if it
    /// is in the snapshot.
    public struct GetDeviceReply: Codable, Sendable {
        /// The device's item now, if it is in the snapshot.
        public var device: ScanItem?
        /// Its history (the fields of ``KnownDevice``, at the top level of the reply).
        public var history: KnownDevice
        /// Its presence transitions, oldest first (the last 30 days, 1,000 at the most).
        public var transitions: [Transition]

        /// Creates a reply.
        public init(device: ScanItem?, history: KnownDevice, transitions: [Transition] = []) {
            self.device = device
            self.history = history
            self.transitions = transitions
        }

        private enum CodingKeys: String, CodingKey { case device, transitions }

        public init(from decoder: any Decoder) throws {
            history = try KnownDevice(from: decoder)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            device = try container.decodeIfPresent(ScanItem.self, forKey: .device)
            transitions = try container.decodeIfPresent([Transition].self, forKey: .transitions) ?? []
        }

        public func encode(to encoder: any Encoder) throws {
            try history.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(device, forKey: .device)
            try container.encode(transitions, forKey: .transitions)
        }
    }

    /// The reply of ForgetDevice: no fields.
    public struct ForgetDeviceReply: Codable, Sendable {
        /// Creates a reply.
        public init() {}
    }

    /// The reply of ListKnownDevices.
    public struct ListKnownDevicesReply: Codable, Sendable {
        /// Every device the daemon remembers, most recently seen first.
        public var devices: [KnownDevice]

        /// Creates a reply.
        public init(devices: [KnownDevice]) { self.devices = devices }
    }
}
