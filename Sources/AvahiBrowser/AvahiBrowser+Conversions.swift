// Conversions from Avahi's C values: interface names, addresses, TXT records, host names; and the event stream's
// input. The instance methods run on Avahi's poll thread or with the poll lock held (`interfaceName` caches in
// poll-thread state; see the threading note in AvahiBrowser.swift).

internal import CAvahi
internal import POSIXText

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
        guard let name = POSIXText.interfaceName(index: UInt32(index)) else { return "" }
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
        switch (type, rdata.count) {
        case (UInt16(AVAHI_DNS_TYPE_A), 4), (UInt16(AVAHI_DNS_TYPE_AAAA), 16): POSIXText.address(rdata)
        default: nil
        }
    }

    /// Whether an IPv6 address whose first two bytes are these is link-local (`fe80::/10`).
    static func isLinkLocalIPv6(_ first: UInt8, _ second: UInt8) -> Bool {
        first == 0xfe && second & 0xc0 == 0x80
    }

    /// Textual address; a link-local IPv6 address gets `%interface`.
    func format(_ address: UnsafePointer<AvahiAddress>, _ interface: AvahiIfIndex) -> String {
        var buffer = [CChar](repeating: 0, count: Int(AVAHI_ADDRESS_STR_MAX))
        avahi_address_snprint(&buffer, buffer.count, address)
        let text = POSIXText.string(fromBuffer: buffer)
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
