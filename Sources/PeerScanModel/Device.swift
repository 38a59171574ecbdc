/// The identity of a service, independent of the interface and protocol it was seen on.
public struct ServiceKey: Hashable, Sendable, Codable, Comparable {
    /// The instance name.
    public var name: String
    /// The service type, e.g. `_ssh._tcp`.
    public var type: String
    /// The domain, e.g. `local`.
    public var domain: String

    /// Creates a key.
    public init(name: String, type: String, domain: String) {
        self.name = name
        self.type = type
        self.domain = domain
    }

    public static func < (lhs: ServiceKey, rhs: ServiceKey) -> Bool {
        (lhs.type, lhs.name, lhs.domain) < (rhs.type, rhs.name, rhs.domain)
    }
}

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

/// A device on the network: everything published under one mDNS host name.
///
/// Its content holds no volatile data (no timestamps, no TTLs), so an unchanged device never causes an update.
public struct Device: Hashable, Sendable, Codable, Identifiable {
    /// The device's stable identifier (the daemon derives it from the host name; see ``DeviceID``).
    public var id: DeviceID
    /// The canonical host name: lowercase, without a trailing dot, e.g. `tv.local`.
    public var hostName: String
    /// A name for people: the instance name most of its services share, or the first label of its host name.
    public var displayName: String
    /// Its addresses, IPv4 first, then IPv6, each sorted; link-local IPv6 carry a `%interface` scope.
    public var addresses: [String]
    /// The interfaces it was seen on, sorted.
    public var interfaces: [String]
    /// Its services, sorted by type, then name, then domain.
    public var services: [DeviceService]

    /// Creates a device.
    public init(
        id: DeviceID,
        hostName: String,
        displayName: String,
        addresses: [String],
        interfaces: [String],
        services: [DeviceService]
    ) {
        self.id = id
        self.hostName = hostName
        self.displayName = displayName
        self.addresses = addresses
        self.interfaces = interfaces
        self.services = services
    }
}

extension Device {
    /// The names of the fields that differ between two versions of a device: `name`, `addresses`, `interfaces`,
    /// `services` (a service came or went), `port`, `txt`.
    public static func changedFields(from old: Device, to new: Device) -> [String] {
        var fields: [String] = []
        if old.displayName != new.displayName { fields.append("name") }
        if old.addresses != new.addresses { fields.append("addresses") }
        if old.interfaces != new.interfaces { fields.append("interfaces") }
        let oldServices = Dictionary(old.services.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        let newServices = Dictionary(new.services.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        if Set(oldServices.keys) != Set(newServices.keys) { fields.append("services") }
        let common = Set(oldServices.keys).intersection(newServices.keys)
        if common.contains(where: { oldServices[$0]?.port != newServices[$0]?.port }) { fields.append("port") }
        if common.contains(where: { oldServices[$0]?.txt != newServices[$0]?.txt }) { fields.append("txt") }
        return fields
    }
}

/// One entry of a DNS-SD TXT record: `key=value`, or a bare `key` (value `nil`).
public struct TXTEntry: Hashable, Sendable, Codable {
    /// The key.
    public var key: String
    /// The value; `nil` for a key without `=`.
    public var value: String?

    /// Creates an entry.
    public init(key: String, value: String?) {
        self.key = key
        self.value = value
    }
}
