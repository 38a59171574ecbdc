/// An IPv4 address of an interface with the prefix length of its subnet: this host's place in a directly connected
/// subnet, and so the subnet itself (``sweepAddresses(limit:)``).
public struct IPv4InterfaceAddress: Hashable, Sendable, CustomStringConvertible {
    /// The interface's name, e.g. `eth0`.
    public var interface: String
    /// The address, in host byte order.
    public var address: UInt32
    /// The prefix length, 0…32 (the initializer clamps it).
    public var prefixLength: Int

    /// Creates an address; a prefix length outside 0…32 is clamped to it.
    public init(interface: String, address: UInt32, prefixLength: Int) {
        self.interface = interface
        self.address = address
        self.prefixLength = min(max(prefixLength, 0), 32)
    }

    /// The most addresses a sweep covers: the 1,024 of a /22, as many entries as the kernel's neighbour table holds
    /// by default (`gc_thresh3`).
    public static let defaultSweepLimit = 1024

    /// The addresses a sweep of the subnet sends to, in order: every host address of the subnet but this host's own,
    /// the network and broadcast addresses excluded (a /31 has two hosts and no broadcast, a /32 none). A subnet
    /// larger than `limit` addresses is swept over the aligned block of `limit` addresses (a power of two) around
    /// this host's address.
    ///
    /// - Parameter limit: The most addresses swept; less than 1 counts as 1.
    /// - Returns: The addresses, in host byte order, ascending.
    /// - Complexity: O(min(2^(32 − prefixLength), limit)).
    public func sweepAddresses(limit: Int = defaultSweepLimit) -> [UInt32] {
        let hostBits = 32 - min(max(prefixLength, 0), 32)
        guard hostBits >= 1 else { return [] }
        let size = UInt64(1) << UInt64(hostBits)
        var blockSize = size
        var cappedBits = hostBits
        while blockSize > UInt64(max(limit, 1)) {
            blockSize >>= 1
            cappedBits -= 1
        }
        let subnetMask: UInt32 = hostBits == 32 ? 0 : ~UInt32(0) << UInt32(hostBits)
        let network = address & subnetMask
        let broadcast = network | ~subnetMask
        let blockMask: UInt32 = cappedBits == 32 ? 0 : ~UInt32(0) << UInt32(cappedBits)
        let start = address & blockMask
        var addresses: [UInt32] = []
        addresses.reserveCapacity(Int(blockSize))
        for offset in 0..<UInt32(truncatingIfNeeded: blockSize) {
            let candidate = start &+ offset
            if candidate == address { continue }
            if hostBits > 1 && (candidate == network || candidate == broadcast) { continue }
            addresses.append(candidate)
        }
        return addresses
    }

    /// The address in dotted-quad form with its prefix length and interface, e.g. `192.168.1.2/24 on eth0`.
    public var description: String {
        let dotted = "\(address >> 24).\(address >> 16 & 0xFF).\(address >> 8 & 0xFF).\(address & 0xFF)"
        return "\(dotted)/\(prefixLength) on \(interface)"
    }
}
