internal import CNl80211
import Glibc

/// A netlink message captured as bytes (as the kernel sends it: `nlmsghdr`, the generic netlink header, then the
/// attributes), parsed by the same code as a live one: what tests feed the parsers without a radio.
enum CapturedMessage {
    /// `parse` applied to `bytes` as a libnl message, or `nil` for bytes too short for the length they declare or
    /// for a generic netlink message.
    ///
    /// - Complexity: O(n) for n bytes (one copy).
    static func parse<Parsed>(_ bytes: [UInt8], _ parse: (OpaquePointer) -> Parsed?) -> Parsed? {
        let headers = MemoryLayout<nlmsghdr>.size + MemoryLayout<genlmsghdr>.size
        guard bytes.count >= headers else { return nil }
        let declared = bytes.withUnsafeBytes { Int($0.loadUnaligned(as: nlmsghdr.self).nlmsg_len) }
        guard declared >= headers, declared <= bytes.count else { return nil }
        // nlmsg_convert copies the message into a buffer of libnl's own (aligned, and freed with the message).
        let aligned = UnsafeMutableRawPointer.allocate(byteCount: declared, alignment: 8)
        defer { aligned.deallocate() }
        bytes.withUnsafeBytes { aligned.copyMemory(from: $0.baseAddress!, byteCount: declared) }
        guard let message = nlmsg_convert(aligned.assumingMemoryBound(to: nlmsghdr.self)) else { return nil }
        defer { nlmsg_free(message) }
        return parse(message)
    }

    /// The interface a `NL80211_CMD_NEW_INTERFACE` message (a dump's answer) describes.
    static func interface(_ bytes: [UInt8]) -> Nl80211Interface? { parse(bytes, Nl80211Client.interface) }

    /// The BSS a `NL80211_CMD_NEW_SCAN_RESULTS` message (a scan dump's answer) describes.
    static func bss(_ bytes: [UInt8]) -> Nl80211BSS? { parse(bytes, Nl80211Client.bss) }

    /// The event an nl80211 multicast message announces.
    static func event(_ bytes: [UInt8]) -> Nl80211Event? { parse(bytes, Nl80211Monitor.event) }

    /// The event an rtnetlink link message announces.
    static func linkEvent(_ bytes: [UInt8]) -> Nl80211Event? { parse(bytes, Nl80211Monitor.linkEvent) }
}
