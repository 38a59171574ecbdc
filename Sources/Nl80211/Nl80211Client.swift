internal import CNl80211
import Glibc

/// Requests to nl80211: the wireless interfaces, the kernel's scan results, and triggering a scan. Each call opens a
/// socket of its own (and resolves the family: a few microseconds), so calls need no lock and may come from any
/// thread; each blocks only until the kernel answers, which it does at once (a scan's results come later, as an
/// event: see ``Nl80211Monitor``).
public struct Nl80211Client: Sendable {
    /// Creates a client.
    public init() {}

    /// The host's wireless interfaces (every mode: the caller picks stations). A dump the kernel marks interrupted
    /// is made again (3 tries).
    /// - Complexity: O(n) for n interfaces, plus one `ioctl` each for its flags.
    public func interfaces() throws -> [Nl80211Interface] {
        try Self.retryingInterrupted { try dumpInterfaces() }
    }

    private func dumpInterfaces() throws -> [Nl80211Interface] {
        let socket = try GenericNetlinkSocket.nl80211()
        final class Collected { var interfaces: [Nl80211Interface] = [] }
        let collected = Collected()
        try socket.request(
            "dump interfaces",
            interface: nil,
            command: UInt8(NL80211_CMD_GET_INTERFACE.rawValue),
            dump: true,
            handle: { message in
                if let interface = Self.interface(message) { collected.interfaces.append(interface) }
            }
        )
        return collected.interfaces
    }

    /// The kernel's scan results for one interface: every BSS in its cache (cfg80211 keeps one ~30 s after it was
    /// last heard). Needs no privilege. A dump the kernel marks interrupted is made again (3 tries).
    /// - Complexity: O(n) for n BSSs.
    public func scanResults(interfaceIndex: Int32, interfaceName: String) throws -> [Nl80211BSS] {
        try Self.retryingInterrupted {
            try dumpScanResults(interfaceIndex: interfaceIndex, interfaceName: interfaceName)
        }
    }

    private func dumpScanResults(interfaceIndex: Int32, interfaceName: String) throws -> [Nl80211BSS] {
        let socket = try GenericNetlinkSocket.nl80211()
        final class Collected { var results: [Nl80211BSS] = [] }
        let collected = Collected()
        try socket.request(
            "dump scan results",
            interface: interfaceName,
            command: UInt8(NL80211_CMD_GET_SCAN.rawValue),
            dump: true,
            build: { message in nla_put_u32(message, Int32(NL80211_ATTR_IFINDEX.rawValue), UInt32(interfaceIndex)) },
            handle: { message in
                if let bss = Self.bss(message) { collected.results.append(bss) }
            }
        )
        return collected.results
    }

    /// Asks the kernel to scan on an interface (every channel, the wildcard SSID: an active scan, as `iw dev X scan`).
    /// Returns once the kernel accepted; ``Nl80211Event/scanFinished(interfaceIndex:)`` follows. Needs
    /// CAP_NET_ADMIN: without it throws ``Nl80211Error/Code/permissionDenied``; `EBUSY` while a scan runs.
    public func triggerScan(interfaceIndex: Int32, interfaceName: String) throws {
        let socket = try GenericNetlinkSocket.nl80211()
        try socket.request(
            "trigger scan",
            interface: interfaceName,
            command: UInt8(NL80211_CMD_TRIGGER_SCAN.rawValue),
            dump: false,
            build: { message in
                guard nla_put_u32(message, Int32(NL80211_ATTR_IFINDEX.rawValue), UInt32(interfaceIndex)) >= 0,
                    let ssids = nla_nest_start(message, Int32(NL80211_ATTR_SCAN_SSIDS.rawValue))
                else { return -1 }
                guard nla_put(message, 1, 0, nil) >= 0 else { return -1 }  // the wildcard SSID
                return nla_nest_end(message, ssids)
            }
        )
    }

    /// A dump, made again (up to 3 times in all) while the kernel says it changed as it was sent: the cache
    /// changes when a scan finishes, which is exactly when a source dumps.
    static func retryingInterrupted<Result>(_ dump: () throws -> Result) throws -> Result {
        for _ in 1..<3 {
            do {
                return try dump()
            } catch let error as Nl80211Error where error.code == .interrupted {
                continue
            }
        }
        return try dump()
    }

    /// The attributes of a generic netlink message, indexed by type (`nil` where absent).
    static func attributes(_ message: OpaquePointer, maximum: UInt32) -> [UnsafeMutablePointer<nlattr>?] {
        var table = [UnsafeMutablePointer<nlattr>?](repeating: nil, count: Int(maximum) + 1)
        let header = genlmsg_hdr(nlmsg_hdr(message))
        let parsed = table.withUnsafeMutableBufferPointer { buffer in
            nla_parse(buffer.baseAddress, Int32(maximum), genlmsg_attrdata(header, 0), genlmsg_attrlen(header, 0), nil)
        }
        return parsed < 0 ? [] : table
    }

    /// The generic netlink command of a message.
    static func command(_ message: OpaquePointer) -> UInt8 { genlmsg_hdr(nlmsg_hdr(message)).pointee.cmd }

    static func interface(_ message: OpaquePointer) -> Nl80211Interface? {
        let table = attributes(message, maximum: NL80211_ATTR_MAX.rawValue)
        guard !table.isEmpty, let index = u32(table, NL80211_ATTR_IFINDEX.rawValue),
            let nameAttribute = table[Int(NL80211_ATTR_IFNAME.rawValue)]
        else { return nil }
        let name = String(cString: nla_get_string(nameAttribute))
        return Nl80211Interface(
            index: Int32(bitPattern: index),
            name: name,
            type: .init(rawValue: u32(table, NL80211_ATTR_IFTYPE.rawValue) ?? 0),
            ssid: bytes(table[Int(NL80211_ATTR_SSID.rawValue)]),
            frequency: u32(table, NL80211_ATTR_WIPHY_FREQ.rawValue).map { Int($0) },
            isUp: peerscan_interface_is_up(name) == 1
        )
    }

    static func bss(_ message: OpaquePointer) -> Nl80211BSS? {
        let table = attributes(message, maximum: NL80211_ATTR_MAX.rawValue)
        guard !table.isEmpty, let nested = table[Int(NL80211_ATTR_BSS.rawValue)] else { return nil }
        var bss = [UnsafeMutablePointer<nlattr>?](repeating: nil, count: Int(NL80211_BSS_MAX.rawValue) + 1)
        let parsed = bss.withUnsafeMutableBufferPointer { buffer in
            nla_parse_nested(buffer.baseAddress, Int32(NL80211_BSS_MAX.rawValue), nested, nil)
        }
        guard parsed >= 0, let bssid = bytes(bss[Int(NL80211_BSS_BSSID.rawValue)]), bssid.count == 6,
            let frequency = u32(bss, NL80211_BSS_FREQUENCY.rawValue)
        else { return nil }
        return Nl80211BSS(
            bssid: bssid,
            frequency: Int(frequency),
            signalMBM: u32(bss, NL80211_BSS_SIGNAL_MBM.rawValue).map { Int(Int32(bitPattern: $0)) },
            seenMillisecondsAgo: u32(bss, NL80211_BSS_SEEN_MS_AGO.rawValue).map { Int($0) },
            capability: bss[Int(NL80211_BSS_CAPABILITY.rawValue)].flatMap { nla_len($0) >= 2 ? nla_get_u16($0) : nil },
            status: u32(bss, NL80211_BSS_STATUS.rawValue).flatMap(Nl80211BSS.Status.init(rawValue:)),
            informationElements: bytes(bss[Int(NL80211_BSS_INFORMATION_ELEMENTS.rawValue)]) ?? [],
            beaconInformationElements: bytes(bss[Int(NL80211_BSS_BEACON_IES.rawValue)])
        )
    }

    /// A 32-bit attribute's value, or `nil` if absent or too short.
    static func u32(_ table: [UnsafeMutablePointer<nlattr>?], _ type: UInt32) -> UInt32? {
        guard Int(type) < table.count, let attribute = table[Int(type)], nla_len(attribute) >= 4 else { return nil }
        return nla_get_u32(attribute)
    }

    /// An attribute's payload.
    static func bytes(_ attribute: UnsafeMutablePointer<nlattr>?) -> [UInt8]? {
        guard let attribute, let data = nla_data(attribute) else { return nil }
        return Array(UnsafeRawBufferPointer(start: data, count: Int(nla_len(attribute))))
    }
}
