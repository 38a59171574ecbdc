// The values an `AvahiBrowser` reports. Plain Swift types: nothing here knows the C API.

import NetworkInterfaces

/// What an ``AvahiBrowser`` reports, in the order Avahi reported it.
public enum AvahiEvent: Sendable, Equatable {
    /// The connection to avahi-daemon changed state; `hostName` is the daemon's fully qualified
    /// host name (`"scanner.local"`) while it is registering, running or in collision.
    case serverState(AvahiServerState, hostName: String?)
    /// A browser reported a service (a new browse row); its resolution follows as ``serviceResolved(_:)``. Emitted
    /// before ``allForNow`` for every row the browsers know, so a consumer can tell which services are still there
    /// before they are resolved.
    case serviceFound(AvahiServiceKey)
    /// A service was resolved for the first time, or its resolution changed (address, port, TXT,
    /// host name or flags). The resolver of each browse row stays open, so every later change is
    /// reported; identical repeats are not.
    case serviceResolved(AvahiService)
    /// The service of this browse row is gone from the network.
    case serviceRemoved(AvahiServiceKey)
    /// Resolving a browse row failed (for example a timeout). The resolver stays open: a later
    /// answer still arrives as ``serviceResolved(_:)``.
    case resolveFailed(AvahiServiceKey, AvahiError)
    /// The browser of this service type reported Avahi's `ALL_FOR_NOW` (or failed): every service of the type it
    /// will find soon has been reported with ``serviceFound(_:)``.
    case typeSettled(String)
    /// Every browser created so far has reported Avahi's `ALL_FOR_NOW`: the picture is settled
    /// for now. Reported again after each later settling (new service types, reconnects).
    case allForNow
    /// Every browser created so far has passed the daemon's cached entries. Like ``allForNow``
    /// it comes again whenever browsers created later (one per newly found type) have caught up.
    case cacheExhausted
    /// An address record (A or AAAA) of a host that resolved services point to appeared. Every address of the host
    /// is reported, not only the one a resolver picked; the same address may come once per interface and protocol.
    case addressAdded(AvahiHostAddress)
    /// An address record of such a host is gone.
    case addressRemoved(AvahiHostAddress)
    /// The host's address records are being followed from now on (it comes before the ``serviceResolved(_:)`` that
    /// made the browser follow them); ``addressesKnown(hostName:)`` follows once the daemon's cache has given them.
    case followingAddresses(hostName: String)
    /// Every address record of the host that avahi-daemon had cached has been reported.
    case addressesKnown(hostName: String)
}

/// One address record of a host, as seen on one interface over one protocol.
public struct AvahiHostAddress: Hashable, Sendable, CustomStringConvertible {
    /// The host name, lowercase, without a trailing dot (`"printer.local"`).
    public var hostName: String
    /// The address in text form; a link-local IPv6 address carries its zone (`fe80::1%eth0`).
    public var address: String
    /// The kernel index of the interface the record was seen on.
    public var interfaceIndex: Int32
    /// The name of that interface (`"eth0"`), empty if the index had no name.
    public var interfaceName: String
    /// The protocol the record was seen over (an A record can come over IPv6 too).
    public var ipProtocol: IPProtocol

    /// Creates an address record from its parts.
    public init(
        hostName: String,
        address: String,
        interfaceIndex: Int32,
        interfaceName: String,
        ipProtocol: IPProtocol
    ) {
        self.hostName = hostName
        self.address = address
        self.interfaceIndex = interfaceIndex
        self.interfaceName = interfaceName
        self.ipProtocol = ipProtocol
    }

    /// `host address on interface/protocol`, for logs.
    public var description: String {
        "\(hostName) \(address) on \(interfaceName)/\(ipProtocol == .ipv4 ? "IPv4" : "IPv6")"
    }
}

/// The state of the connection to avahi-daemon.
public enum AvahiServerState: Sendable, Equatable {
    /// Waiting for the daemon to appear on the bus.
    case connecting
    /// The daemon is registering its host name records.
    case registering
    /// The daemon is running; browsing works.
    case running
    /// The daemon's host name collided with another host's.
    case collision
    /// The client failed (for example the daemon went away); the browser reconnects by itself.
    case failure(AvahiError)
    /// No client could be created (no system bus or no daemon); the browser retries with backoff.
    case unavailable(AvahiError)
}

/// Identifies one browse row. Avahi reports a service once per (interface, protocol), so the same
/// service name appears under several keys.
public struct AvahiServiceKey: Hashable, Sendable, CustomStringConvertible {
    /// The kernel index of the interface the service was seen on.
    public var interfaceIndex: Int32
    /// The name of that interface (`"eth0"`), empty if the index had no name.
    public var interfaceName: String
    /// The protocol the service was seen on.
    public var ipProtocol: IPProtocol
    /// The service instance name, unescaped (`"My Printer"`).
    public var name: String
    /// The service type (`"_ipp._tcp"`).
    public var type: String
    /// The domain (`"local"`).
    public var domain: String

    /// Creates a key from its parts.
    public init(
        interfaceIndex: Int32,
        interfaceName: String,
        ipProtocol: IPProtocol,
        name: String,
        type: String,
        domain: String
    ) {
        self.interfaceIndex = interfaceIndex
        self.interfaceName = interfaceName
        self.ipProtocol = ipProtocol
        self.name = name
        self.type = type
        self.domain = domain
    }

    /// `name.type.domain on interface/protocol`, for logs.
    public var description: String {
        "\(name).\(type).\(domain) on \(interfaceName)/\(ipProtocol == .ipv4 ? "IPv4" : "IPv6")"
    }
}

/// One string of a TXT record: `key=value`, or a bare `key` (whose ``value`` is `nil`).
public struct TXTRecord: Hashable, Sendable {
    /// The part before the first `=` (the whole string if there is none).
    public var key: String
    /// The raw bytes after the first `=`; `nil` for a key without `=`, empty for `key=`.
    public var value: [UInt8]?

    /// Creates a TXT entry from its key and raw value.
    public init(key: String, value: [UInt8]?) {
        self.key = key
        self.value = value
    }

    /// Parses one raw TXT string, splitting at the first `=`.
    ///
    /// - Parameter bytes: The string's bytes as sent on the wire.
    /// - Complexity: O(*n*) in the length of `bytes`.
    public init(_ bytes: some Collection<UInt8>) {
        if let equals = bytes.firstIndex(of: UInt8(ascii: "=")) {
            key = String(decoding: bytes[..<equals], as: UTF8.self)
            value = Array(bytes[bytes.index(after: equals)...])
        } else {
            key = String(decoding: bytes, as: UTF8.self)
            value = nil
        }
    }

    /// The value decoded as UTF-8 (invalid bytes replaced), `nil` for a key without `=`.
    public var stringValue: String? { value.map { String(decoding: $0, as: UTF8.self) } }
}

/// Avahi's lookup result flags of a resolved service.
public struct AvahiResultFlags: OptionSet, Hashable, Sendable {
    public let rawValue: UInt32
    /// Creates flags from Avahi's `AvahiLookupResultFlags` bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// The answer came from the daemon's cache.
    public static let cached = AvahiResultFlags(rawValue: 1)
    /// The answer came from wide-area DNS.
    public static let wideArea = AvahiResultFlags(rawValue: 2)
    /// The answer came from multicast DNS.
    public static let multicast = AvahiResultFlags(rawValue: 4)
    /// The service is published by this host.
    public static let local = AvahiResultFlags(rawValue: 8)
    /// The service is published by this very client.
    public static let ourOwn = AvahiResultFlags(rawValue: 16)
    /// The service is defined statically (avahi's services directory).
    public static let `static` = AvahiResultFlags(rawValue: 32)
}

/// A resolved service: one browse row with its host name, address, port and TXT record.
public struct AvahiService: Sendable, Equatable {
    /// The browse row this resolution belongs to.
    public var key: AvahiServiceKey
    /// The target host name (`"printer.local"`).
    public var hostName: String
    /// The address resolved for the row's protocol (an IPv4 row resolves an IPv4 address, an IPv6
    /// row an IPv6 one), textual; a link-local IPv6 address carries its zone (`fe80::1%eth0`).
    /// Avahi resolves one address per row; combine the rows of a service to get both families.
    public var addresses: [String]
    /// The service port.
    public var port: UInt16
    /// The TXT strings in the order they were sent, raw values kept.
    public var txt: [TXTRecord]
    /// Flags from the browser and the resolver, combined.
    public var flags: AvahiResultFlags

    /// Creates a resolved service from its parts.
    public init(
        key: AvahiServiceKey,
        hostName: String,
        addresses: [String],
        port: UInt16,
        txt: [TXTRecord],
        flags: AvahiResultFlags
    ) {
        self.key = key
        self.hostName = hostName
        self.addresses = addresses
        self.port = port
        self.txt = txt
        self.flags = flags
    }

    /// Whether this host publishes the service.
    public var isLocal: Bool { flags.contains(.local) }
    /// Whether this very client publishes the service.
    public var isOurOwn: Bool { flags.contains(.ourOwn) }
}
