// What this target's tests share: netlink messages laid out byte by byte as the kernel sends them (little-endian,
// attributes padded to 4 bytes), the captures the parsers are fed without a radio.

/// Netlink message bytes, built by hand.
enum NetlinkBytes {
    /// nl80211's attribute and command numbers (linux/nl80211.h), spelled out: the tests do not import the headers.
    enum Attribute {
        static let interfaceIndex: UInt16 = 3
        static let interfaceName: UInt16 = 4
        static let interfaceType: UInt16 = 5
        static let frequency: UInt16 = 38
        static let bss: UInt16 = 47
        static let ssid: UInt16 = 52
    }

    /// The attributes nested in `NL80211_ATTR_BSS`.
    enum BSS {
        static let bssid: UInt16 = 1
        static let frequency: UInt16 = 2
        static let capability: UInt16 = 5
        static let informationElements: UInt16 = 6
        static let signalMBM: UInt16 = 7
        static let status: UInt16 = 9
        static let seenMillisecondsAgo: UInt16 = 10
        static let beaconInformationElements: UInt16 = 11
    }

    enum Command {
        static let setInterface: UInt8 = 6
        static let newInterface: UInt8 = 7
        static let deleteInterface: UInt8 = 8
        static let newStation: UInt8 = 19
        static let newScanResults: UInt8 = 34
        static let scanAborted: UInt8 = 35
        static let connect: UInt8 = 46
        static let disconnect: UInt8 = 48
    }

    static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    static func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }

    /// One attribute: length, type, payload, padding.
    static func attribute(_ type: UInt16, _ payload: [UInt8]) -> [UInt8] {
        let bytes = le16(UInt16(4 + payload.count)) + le16(type) + payload
        return bytes + [UInt8](repeating: 0, count: (4 - bytes.count % 4) % 4)
    }

    static func u32(_ type: UInt16, _ value: UInt32) -> [UInt8] { attribute(type, le32(value)) }
    static func u16(_ type: UInt16, _ value: UInt16) -> [UInt8] { attribute(type, le16(value)) }
    static func string(_ type: UInt16, _ text: String) -> [UInt8] { attribute(type, Array(text.utf8) + [0]) }
    static func nested(_ type: UInt16, _ attributes: [[UInt8]]) -> [UInt8] {
        attribute(type, attributes.flatMap { $0 })
    }

    /// A netlink header (`nlmsghdr`) before `payload`.
    static func message(type: UInt16, _ payload: [UInt8]) -> [UInt8] {
        le32(UInt32(16 + payload.count)) + le16(type) + le16(0) + le32(1) + le32(0) + payload
    }

    /// A generic netlink message of nl80211 (its family number is the kernel's choice: any will do).
    static func nl80211(_ command: UInt8, _ attributes: [[UInt8]]) -> [UInt8] {
        message(type: 0x1C, [command, 1, 0, 0] + attributes.flatMap { $0 })
    }

    /// An rtnetlink link message (`ifinfomsg`) of `type` (`RTM_NEWLINK` 16, `RTM_DELLINK` 17) for `index`.
    static func link(type: UInt16, index: Int32) -> [UInt8] {
        message(type: type, [0, 0] + le16(1) + le32(UInt32(bitPattern: index)) + le32(0) + le32(0))
    }
}
