import Glibc
internal import POSIXText

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

    /// Whether the interface named exists and is up (`IFF_UP`); `false` if the kernel could not be asked.
    ///
    /// - Complexity: O(n) in the number of addresses.
    public static func isUp(_ name: String) -> Bool {
        current().contains { $0.name == name && $0.flags & UInt32(IFF_UP) != 0 }
    }

    /// The names of the interfaces mDNS is browsed on by default (``NetworkInterface/isBrowsedByDefault``), sorted.
    public static func browsedByDefault(_ interfaces: [NetworkInterface] = current()) -> [String] {
        interfaces.filter(\.isBrowsedByDefault).map(\.name).sorted()
    }

    /// Every IPv4 address of the interfaces named (all interfaces if `names` is `nil`) with its prefix length, in the
    /// kernel's order.
    ///
    /// - Complexity: O(n) in the number of addresses.
    public static func ipv4Addresses(on names: Set<String>? = nil) -> [IPv4InterfaceAddress] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var result: [IPv4InterfaceAddress] = []
        var entry: UnsafeMutablePointer<ifaddrs>? = first
        while let current = entry {
            entry = current.pointee.ifa_next
            let name = String(cString: current.pointee.ifa_name)
            guard names?.contains(name) ?? true, let address = current.pointee.ifa_addr,
                Int32(address.pointee.sa_family) == AF_INET, let netmask = current.pointee.ifa_netmask
            else { continue }
            let host = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                UInt32(bigEndian: $0.pointee.sin_addr.s_addr)
            }
            let mask = netmask.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                UInt32(bigEndian: $0.pointee.sin_addr.s_addr)
            }
            result.append(IPv4InterfaceAddress(interface: name, address: host, prefixLength: mask.nonzeroBitCount))
        }
        return result
    }
}

extension NetworkInterfaces {
    /// The global (not link-local) IPv6 addresses of the interface named, in text form, in the kernel's order.
    ///
    /// - Complexity: O(n) in the number of addresses.
    public static func globalIPv6Addresses(on name: String) -> [String] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var result: [String] = []
        var entry: UnsafeMutablePointer<ifaddrs>? = first
        while let current = entry {
            entry = current.pointee.ifa_next
            guard String(cString: current.pointee.ifa_name) == name, let address = current.pointee.ifa_addr,
                Int32(address.pointee.sa_family) == AF_INET6
            else { continue }
            var bytes = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
            let isLinkLocal = withUnsafeBytes(of: &bytes) { $0[0] == 0xFE && $0[1] & 0xC0 == 0x80 }
            guard !isLinkLocal else { continue }
            guard let text = withUnsafeBytes(of: &bytes, { POSIXText.address($0) }) else { continue }
            result.append(text)
        }
        return result
    }
}
