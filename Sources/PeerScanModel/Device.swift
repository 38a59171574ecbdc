import DiscoveryTerms
import Foundation

/// A service a device offers, merged over every interface and protocol it was seen on.
public struct DeviceService: Hashable, Sendable, Codable {
    /// The instance name, e.g. `Living Room TV`.
    public var name: String
    /// The service type, e.g. `_airplay._tcp`.
    public var type: String
    /// The domain, e.g. `local`.
    public var domain: String
    /// The port.
    public var port: UInt16
    /// The TXT record, in the order the service published it.
    public var txt: [TXTEntry]

    /// Creates a service.
    public init(name: String, type: String, domain: String, port: UInt16, txt: [TXTEntry]) {
        self.name = name
        self.type = type
        self.domain = domain
        self.port = port
        self.txt = txt
    }

    /// The service's identity.
    public var key: ServiceKey { ServiceKey(name: name, type: type, domain: domain) }
}

/// A device on the network: one physical host, as mDNS and the kernel's neighbour table see it.
///
/// A device is everything published under one mDNS host name together with the MAC addresses its addresses resolve
/// to; a host that does not speak mDNS is one device per MAC address, with no host name. Its content holds no
/// volatile data (no timestamps, no TTLs, no neighbour states), so an unchanged device never causes an update:
/// ``online`` flips only when the device really comes or goes.
public struct Device: Hashable, Sendable, Codable, Identifiable {
    /// The device's stable identifier (the daemon derives it from the host name, or from the MAC address of a device
    /// without one; see ``DeviceID``).
    public var id: DeviceID
    /// The canonical host name: lowercase, without a trailing dot, e.g. `tv.local`; `nil` for a device known only
    /// from the neighbour table.
    public var hostName: String?
    /// A name for people: the instance name most of its services share, or the first label of its host name; `nil`
    /// for a device known only from the neighbour table (see ``label`` for what to show instead).
    public var displayName: String?
    /// Its addresses, IPv4 first, then IPv6, each sorted; link-local IPv6 carry a `%interface` scope.
    public var addresses: [String]
    /// The interfaces it was seen on, sorted.
    public var interfaces: [String]
    /// Its services, sorted by type, then name, then domain; empty for a device that does not speak mDNS (or no
    /// longer publishes any).
    public var services: [DeviceService]
    /// The MAC addresses its addresses resolve to, lowercase `aa:bb:cc:dd:ee:ff`, sorted.
    public var macAddresses: [String]
    /// The organization the IEEE assigned the first MAC address's block to; `nil` for a locally administered
    /// (randomized) address, an unknown block, or no MAC address.
    public var vendor: String?
    /// Whether it answers now: it has mDNS records, or the kernel reaches it, or it did either within the daemon's
    /// `--offline-after`.
    public var online: Bool
    /// Why it is ``online`` or not: how it last came online, or what went unanswered when it went offline; it
    /// changes only when ``online`` does. `nil` for a device no daemon has judged yet.
    public var presenceReason: PresenceReason?
    /// The name a person gave the device (``DeviceLabel/name``, `label` on the wire); ``displayName`` is this name
    /// when it is set.
    public var assignedName: String?
    /// Whether a person marked the device important (``DeviceLabel/isImportant``, `important` on the wire).
    public var isImportant: Bool
    /// What its Bluetooth LE advertisements say; `nil` for a device not heard over Bluetooth (absent on the wire).
    public var bluetooth: BluetoothFacts?

    /// Creates a device.
    public init(
        id: DeviceID,
        hostName: String?,
        displayName: String?,
        addresses: [String],
        interfaces: [String],
        services: [DeviceService],
        macAddresses: [String] = [],
        vendor: String? = nil,
        online: Bool = true,
        presenceReason: PresenceReason? = nil,
        assignedName: String? = nil,
        isImportant: Bool = false,
        bluetooth: BluetoothFacts? = nil
    ) {
        self.id = id
        self.hostName = hostName
        self.displayName = displayName
        self.addresses = addresses
        self.interfaces = interfaces
        self.services = services
        self.macAddresses = macAddresses
        self.vendor = vendor
        self.online = online
        self.presenceReason = presenceReason
        self.assignedName = assignedName
        self.isImportant = isImportant
        self.bluetooth = bluetooth
    }

    /// The device as a person labelled it: ``assignedName`` and ``isImportant`` from `label`, and ``displayName`` the
    /// label's name when it has one. Apply it to a device as derived from its sources (the discovered display name is
    /// not kept).
    public func labelled(_ label: DeviceLabel) -> Device {
        var device = self
        device.assignedName = label.name
        device.isImportant = label.isImportant
        if let name = label.name { device.displayName = name }
        return device
    }

    /// What to call the device: its ``displayName``, else its host name, else its first MAC address, else its first
    /// address, else its Bluetooth address, else its identifier.
    public var label: String {
        displayName ?? hostName ?? macAddresses.first ?? addresses.first ?? bluetooth?.address ?? id.description
    }

    /// The order of devices in the `networks` section: named devices first, then by ``label``, then by identifier.
    public var sortKey: SortKey { SortKey(isUnnamed: displayName == nil, label: label, id: id.description) }

    /// See ``sortKey``.
    public struct SortKey: Comparable, Sendable {
        var isUnnamed: Bool
        /// The label composed (Unicode's NFC), compared by its scalars: `String`'s `<` is not a strict order on every
        /// pair of texts (`"e\u{301}"` and `"\u{e9} "` are neither less than the other), and a sort needs one.
        var label: String
        var id: String

        init(isUnnamed: Bool, label: String, id: String) {
            self.isUnnamed = isUnnamed
            // ASCII is composed already (and Foundation's normalization costs a copy).
            self.label = label.utf8.allSatisfy { $0 < 0x80 } ? label : label.precomposedStringWithCanonicalMapping
            self.id = id
        }

        public static func < (lhs: SortKey, rhs: SortKey) -> Bool {
            if lhs.isUnnamed != rhs.isUnnamed { return rhs.isUnnamed }
            if !lhs.label.unicodeScalars.elementsEqual(rhs.label.unicodeScalars) {
                return lhs.label.unicodeScalars.lexicographicallyPrecedes(rhs.label.unicodeScalars)
            }
            return lhs.id < rhs.id
        }
    }
}

extension Device {
    /// The names of the fields that differ between two versions of a device: `name`, `addresses`, `interfaces`,
    /// `services` (a service came or went), `port`, `txt`, `mac`, `vendor`, `online`, `label`, `important`,
    /// `bluetooth` (its Bluetooth facts: address, name, bars, …).
    public static func changedFields(from old: Device, to new: Device) -> [String] {
        var fields: [String] = []
        if old.displayName != new.displayName || old.hostName != new.hostName { fields.append("name") }
        if old.addresses != new.addresses { fields.append("addresses") }
        if old.interfaces != new.interfaces { fields.append("interfaces") }
        if old.macAddresses != new.macAddresses { fields.append("mac") }
        if old.vendor != new.vendor { fields.append("vendor") }
        if old.online != new.online { fields.append("online") }
        if old.assignedName != new.assignedName { fields.append("label") }
        if old.isImportant != new.isImportant { fields.append("important") }
        if old.bluetooth != new.bluetooth { fields.append("bluetooth") }
        let oldServices = Dictionary(old.services.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        let newServices = Dictionary(new.services.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        if Set(oldServices.keys) != Set(newServices.keys) { fields.append("services") }
        let common = Set(oldServices.keys).intersection(newServices.keys)
        if common.contains(where: { oldServices[$0]?.port != newServices[$0]?.port }) { fields.append("port") }
        if common.contains(where: { oldServices[$0]?.txt != newServices[$0]?.txt }) { fields.append("txt") }
        return fields
    }
}
