/// The kind of a Bluetooth LE device address (Core spec, Vol 6, Part B, 1.3); its wire form is the raw value.
public enum BluetoothAddressType: String, Hashable, Sendable, Codable, CaseIterable {
    /// An IEEE-assigned public address: its OUI names the vendor.
    case `public`
    /// A random static address: fixed at least until the device restarts.
    case randomStatic = "random-static"
    /// A resolvable private address: rotates (about every 15 minutes); the device's Identity Resolving Key resolves it.
    case resolvablePrivate = "resolvable-private"
    /// A non-resolvable private address: rotates and identifies nothing.
    case nonResolvable = "non-resolvable"

    /// The type of an address as BlueZ reports it: `AddressType` `public` or `random`; a random address's two most
    /// significant bits tell its kind (11 static, 01 resolvable, 00 non-resolvable).
    ///
    /// - Parameters:
    ///   - address: The address, `aa:bb:cc:dd:ee:ff` (either case); the first octet is the most significant.
    ///   - isRandom: Whether BlueZ's `AddressType` is `random`.
    /// - Returns: `nil` if the address is not six hex octets, or random with the reserved top bits 10.
    public init?(address: String, isRandom: Bool) {
        let octets = address.split(separator: ":")
        guard octets.count == 6, octets.allSatisfy({ $0.count == 2 }), let first = UInt8(octets[0], radix: 16),
            octets.dropFirst().allSatisfy({ UInt8($0, radix: 16) != nil })
        else { return nil }
        guard isRandom else {
            self = .public
            return
        }
        switch first >> 6 {
        case 0b11: self = .randomStatic
        case 0b01: self = .resolvablePrivate
        case 0b00: self = .nonResolvable
        default: return nil
        }
    }

    /// Whether the address names the same device across time (public or random static): a device seen only under
    /// another kind is ephemeral unless an IRK resolves it.
    public var isIdentity: Bool { self == .public || self == .randomStatic }
}
