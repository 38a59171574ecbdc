/// A directly connected IPv4 subnet: this host's address on an interface and its prefix length.
struct IPv4Subnet: Hashable, Sendable {
    /// The interface, e.g. `eth0`.
    var interface: String
    /// This host's address, in host byte order.
    var address: UInt32
    /// The prefix length, 0…32.
    var prefixLength: Int

    /// Creates a subnet.
    init(interface: String, address: UInt32, prefixLength: Int) {
        self.interface = interface
        self.address = address
        self.prefixLength = min(max(prefixLength, 0), 32)
    }

    /// The most addresses a sweep covers: the 1,024 of a /22, as many entries as the kernel's neighbour table holds
    /// by default (`gc_thresh3`).
    static let defaultSweepLimit = 1024

    /// The addresses a sweep sends to, in order: every host address of the subnet but this host's own, the network
    /// and broadcast addresses excluded (a /31 has two hosts and no broadcast, a /32 none). A subnet larger than
    /// `limit` addresses is swept over the aligned block of `limit` addresses (a power of two) around this host's
    /// address.
    /// - Complexity: O(min(2^(32 − prefixLength), limit)).
    func sweepAddresses(limit: Int = defaultSweepLimit) -> [UInt32] {
        let hostBits = 32 - prefixLength
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

    /// An address in dotted-quad form.
    static func text(_ address: UInt32) -> String {
        "\(address >> 24).\(address >> 16 & 0xFF).\(address >> 8 & 0xFF).\(address & 0xFF)"
    }
}
