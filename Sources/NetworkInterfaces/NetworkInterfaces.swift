import Glibc

/// A network interface as the kernel reports it (`getifaddrs(3)`): its name, flags, and whether it has an IP address.
public struct NetworkInterface: Hashable, Sendable {
    /// The name, e.g. `eth0`.
    public var name: String
    /// The `IFF_*` flags (`IFF_UP`, `IFF_MULTICAST`, …).
    public var flags: UInt32
    /// Whether it has at least one IPv4 or IPv6 address.
    public var hasAddress: Bool

    /// Creates a description of an interface.
    public init(name: String, flags: UInt32, hasAddress: Bool) {
        self.name = name
        self.flags = flags
        self.hasAddress = hasAddress
    }

    /// Whether mDNS is browsed on it when no interface is configured: it is up, multicast-capable, neither loopback
    /// nor point-to-point, and has an address — avahi-daemon's own rule (`avahi-core/iface.c`, without
    /// `allow-point-to-point`).
    public var isBrowsedByDefault: Bool {
        let required = UInt32(IFF_UP) | UInt32(IFF_MULTICAST)
        let excluded = UInt32(IFF_LOOPBACK) | UInt32(IFF_POINTOPOINT)
        return flags & required == required && flags & excluded == 0 && hasAddress
    }
}

/// The host's network interfaces.
public enum NetworkInterfaces {
    /// Every interface, one entry per name, sorted by name; empty if the kernel could not be asked.
    ///
    /// - Complexity: O(n log n) in the number of addresses.
    public static func current() -> [NetworkInterface] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var byName: [String: NetworkInterface] = [:]
        var entry: UnsafeMutablePointer<ifaddrs>? = first
        while let current = entry {
            let name = String(cString: current.pointee.ifa_name)
            let family = current.pointee.ifa_addr.map { Int32($0.pointee.sa_family) }
            let isIP = family == AF_INET || family == AF_INET6
            var interface = byName[name] ?? NetworkInterface(name: name, flags: 0, hasAddress: false)
            interface.flags |= current.pointee.ifa_flags
            interface.hasAddress = interface.hasAddress || isIP
            byName[name] = interface
            entry = current.pointee.ifa_next
        }
        return byName.values.sorted { $0.name < $1.name }
    }

    /// The names of the interfaces mDNS is browsed on by default (``NetworkInterface/isBrowsedByDefault``), sorted.
    public static func browsedByDefault(_ interfaces: [NetworkInterface] = current()) -> [String] {
        interfaces.filter(\.isBrowsedByDefault).map(\.name).sorted()
    }
}
