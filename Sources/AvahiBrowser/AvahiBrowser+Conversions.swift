// Conversions from Avahi's C values: interface names, addresses, TXT records, host names; and the event stream's
// input. The instance methods run on Avahi's poll thread or with the poll lock held (`interfaceName` caches in
// poll-thread state; see the threading note in AvahiBrowser.swift).

internal import CAvahi

#if canImport(Glibc)
import Glibc
#endif

extension AvahiBrowser {
    // MARK: - Conversions

    func emit(_ event: AvahiEvent) {
        continuation.yield(event)
    }

    func isAllowed(_ interface: AvahiIfIndex) -> Bool {
        allowedInterfaces.isEmpty || allowedInterfaces.contains(interfaceName(interface))
    }

    /// The interface's name: the one it had when first seen (Linux hands out indices in increasing order, so an
    /// index stays one interface's; one renamed while the browser runs keeps its first name here), or "" for an
    /// index that never had one.
    func interfaceName(_ index: AvahiIfIndex) -> String {
        guard index > 0 else { return "" }
        if let name = interfaceNames[index] { return name }
        var buffer = [CChar](repeating: 0, count: Int(IF_NAMESIZE) + 1)
        guard if_indextoname(UInt32(index), &buffer) != nil else { return "" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        interfaceNames[index] = name
        return name
    }

    /// The canonical form of a host name: lowercase, without a trailing dot.
    static func canonicalHostName(_ name: String) -> String {
        var name = name.lowercased()
        while name.hasSuffix(".") { name.removeLast() }
        return name
    }

    /// The text of an A record's 4 bytes or an AAAA record's 16 (`inet_ntop`); `nil` for anything else.
    static func addressText(type: UInt16, rdata: UnsafeRawBufferPointer) -> String? {
        let family: Int32
        switch (type, rdata.count) {
        case (UInt16(AVAHI_DNS_TYPE_A), 4): family = AF_INET
        case (UInt16(AVAHI_DNS_TYPE_AAAA), 16): family = AF_INET6
        default: return nil
        }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(family, rdata.baseAddress, &buffer, socklen_t(buffer.count)) != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether an IPv6 address whose first two bytes are these is link-local (`fe80::/10`).
    static func isLinkLocalIPv6(_ first: UInt8, _ second: UInt8) -> Bool {
        first == 0xfe && second & 0xc0 == 0x80
    }

    /// Textual address; a link-local IPv6 address gets `%interface`.
    func format(_ address: UnsafePointer<AvahiAddress>, _ interface: AvahiIfIndex) -> String {
        var buffer = [CChar](repeating: 0, count: Int(AVAHI_ADDRESS_STR_MAX))
        avahi_address_snprint(&buffer, buffer.count, address)
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let bytes = address.pointee.data.ipv6.address
        let isLinkLocal =
            address.pointee.proto == AvahiProtocol(AVAHI_PROTO_INET6) && Self.isLinkLocalIPv6(bytes.0, bytes.1)
        return isLinkLocal ? "\(text)%\(interfaceName(interface))" : text
    }

    /// The TXT strings in wire order (Avahi's list keeps it; `avahi_string_list_to_string`, and so
    /// avahi-browse, prints them reversed).
    func records(_ list: UnsafeMutablePointer<AvahiStringList>?) -> [TXTRecord] {
        var records: [TXTRecord] = []
        var node = list
        while let current = node {
            let bytes = UnsafeBufferPointer(
                start: avahi_string_list_get_text(current),
                count: avahi_string_list_get_size(current)
            )
            records.append(TXTRecord(bytes))
            node = avahi_string_list_get_next(current)
        }
        return records
    }
}
