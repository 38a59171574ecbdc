// The order of a device's addresses.

/// The order of addresses in a device: IPv4 before IPv6, IPv4 numerically, IPv6 by text.
enum AddressOrder {
    static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        let lhsV4 = ipv4Octets(lhs)
        let rhsV4 = ipv4Octets(rhs)
        switch (lhsV4, rhsV4) {
        case (let l?, let r?): return l.lexicographicallyPrecedes(r)
        case (.some, nil): return true
        case (nil, .some): return false
        case (nil, nil): return lhs < rhs
        }
    }

    private static func ipv4Octets(_ address: String) -> [Int]? {
        let parts = address.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        let octets = parts.compactMap { Int($0) }
        return octets.count == 4 ? octets : nil
    }
}
