// The pure parts of the Avahi wrapper: TXT strings, keys, flags and error texts. (Browsing itself is tested against a
// real avahi-daemon in Tests/Integration.)

import Testing

@testable import AvahiBrowser

@Suite struct TXTRecordTests {
    @Test(arguments: [
        ("model=X1", "model", Array("X1".utf8) as [UInt8]?),
        ("flag", "flag", nil),
        ("empty=", "empty", []),
        ("a=b=c", "a", Array("b=c".utf8)),
        ("=value", "", Array("value".utf8)),
    ])
    func splitsAtTheFirstEquals(text: String, key: String, value: [UInt8]?) {
        let record = TXTRecord(Array(text.utf8))
        #expect(record.key == key)
        #expect(record.value == value)
    }

    @Test func keepsRawBytesAndDecodesThemLeniently() {
        let record = TXTRecord([UInt8(ascii: "k"), UInt8(ascii: "="), 0xFF, 0x00, UInt8(ascii: "x")])
        #expect(record.value == [0xFF, 0x00, UInt8(ascii: "x")], "raw bytes kept, NUL included")
        #expect(record.stringValue == "\u{FFFD}\u{0}x", "invalid UTF-8 replaced")
        #expect(TXTRecord(Array("bare".utf8)).stringValue == nil)
    }
}

@Suite struct AvahiServiceKeyTests {
    @Test func describesItselfForLogs() {
        let key = AvahiServiceKey(
            interfaceIndex: 3,
            interfaceName: "lan0",
            ipProtocol: .ipv6,
            name: "Living Room TV",
            type: "_airplay._tcp",
            domain: "local"
        )
        #expect(key.description == "Living Room TV._airplay._tcp.local on lan0/IPv6")
    }
}

@Suite struct AvahiResultFlagsTests {
    @Test func localAndOurOwnComeFromTheirBits() {
        let key = AvahiServiceKey(
            interfaceIndex: 1,
            interfaceName: "lo",
            ipProtocol: .ipv4,
            name: "n",
            type: "t",
            domain: "d"
        )
        func service(_ flags: AvahiResultFlags) -> AvahiService {
            AvahiService(key: key, hostName: "h.local", addresses: [], port: 1, txt: [], flags: flags)
        }
        // Avahi's bits as seen on the test LAN: CACHED | MULTICAST | LOCAL = 13; OUR_OWN = 16.
        #expect(AvahiResultFlags(rawValue: 13) == [.cached, .multicast, .local])
        #expect(service(AvahiResultFlags(rawValue: 13)).isLocal)
        #expect(!service(AvahiResultFlags(rawValue: 13)).isOurOwn)
        #expect(service(.ourOwn).isOurOwn)
        #expect(!service([.multicast]).isLocal)
    }
}

@Suite struct AvahiErrorTests {
    @Test(arguments: [
        (AvahiError.disconnectedCode, "Daemon connection failed"),
        (AvahiError.noDaemonCode, "Daemon not running"),
        (AvahiError.timeoutCode, "Timeout reached"),
    ])
    func carriesAvahisOwnText(code: Int32, text: String) {
        let error = AvahiError(code: code, operation: "avahi_client_new")
        #expect(error.message == text)
        #expect(error.description == "avahi_client_new: \(text) (\(code))")
    }
}

@Suite struct AddressRecordTests {
    @Test func anAOrAAAARecordsBytesAreItsAddress() {
        let a: [UInt8] = [10, 231, 0, 10]
        let aaaa: [UInt8] = [0xfd, 0x70, 0x73, 0x63, 0x61, 0x6e, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10]
        #expect(a.withUnsafeBytes { AvahiBrowser.addressText(type: 1, rdata: $0) } == "10.231.0.10")
        #expect(aaaa.withUnsafeBytes { AvahiBrowser.addressText(type: 28, rdata: $0) } == "fd70:7363:616e::10")
        #expect(a.withUnsafeBytes { AvahiBrowser.addressText(type: 28, rdata: $0) } == nil, "an AAAA of 4 bytes")
        #expect(aaaa.withUnsafeBytes { AvahiBrowser.addressText(type: 16, rdata: $0) } == nil, "not an address type")
    }

    @Test func linkLocalIPv6IsFe80Slash10() {
        #expect(AvahiBrowser.isLinkLocalIPv6(0xfe, 0x80))  // fe80::
        #expect(AvahiBrowser.isLinkLocalIPv6(0xfe, 0xbf))  // febf::
        #expect(!AvahiBrowser.isLinkLocalIPv6(0xfe, 0xc0))  // fec0::
        #expect(!AvahiBrowser.isLinkLocalIPv6(0xfd, 0x70))  // fd70::
        #expect(!AvahiBrowser.isLinkLocalIPv6(10, 0))  // 10.0.…
    }

    @Test func hostNamesAreComparedLowercaseWithoutTheTrailingDot() {
        #expect(AvahiBrowser.canonicalHostName("Printer.Local.") == "printer.local")
    }
}
