import Glibc
import POSIXText
import Testing

@Suite("POSIXText: C buffers")
struct BufferTextTests {
    @Test("a buffer's text stops at the first NUL")
    func stopsAtNUL() {
        let buffer: [CChar] = [0x65, 0x74, 0x68, 0x30, 0, 0x78, 0x79, 0]
        #expect(POSIXText.string(fromBuffer: buffer) == "eth0")
    }

    @Test("a buffer without a NUL is read whole, never past its end")
    func withoutNUL() {
        let buffer: [CChar] = [0x77, 0x6C, 0x61, 0x6E, 0x30]
        #expect(POSIXText.string(fromBuffer: buffer) == "wlan0")
    }

    @Test("an empty buffer and one starting with a NUL are empty text")
    func empty() {
        #expect(POSIXText.string(fromBuffer: [CChar]()) == "")
        #expect(POSIXText.string(fromBuffer: [CChar](repeating: 0, count: 16)) == "")
    }

    @Test("invalid UTF-8 becomes U+FFFD, valid UTF-8 stays")
    func utf8() {
        let buffer = [0xC3, 0xBC, 0xFF, 0x41, 0].map { CChar(bitPattern: UInt8($0)) }
        #expect(POSIXText.string(fromBuffer: buffer) == "ü\u{FFFD}A")
    }

    @Test("a C array field's bytes (a tuple) convert through its buffer")
    func tupleField() {
        var name = sockaddr_un()
        withUnsafeMutableBytes(of: &name.sun_path) { $0.copyBytes(from: Array("/run/x.sock".utf8)) }
        let text = withUnsafeBytes(of: name.sun_path) {
            POSIXText.string(fromBuffer: $0.map { CChar(bitPattern: $0) })
        }
        #expect(text == "/run/x.sock")
    }
}

@Suite("POSIXText: errno descriptions")
struct ErrorDescriptionTests {
    @Test("a known errno is described as strerror describes it", arguments: [ENOENT, EACCES, EINTR, EPERM])
    func known(code: Int32) {
        #expect(POSIXText.errorDescription(code) == String(cString: strerror(code)))
        #expect(!POSIXText.errorDescription(code).isEmpty)
    }

    @Test("ENOENT's text")
    func noEntry() {
        #expect(POSIXText.errorDescription(ENOENT) == "No such file or directory")
    }

    @Test("an unknown errno is named by its number, not a trap", arguments: [-1, 100_000, Int32.max, Int32.min])
    func unknown(code: Int32) {
        #expect(POSIXText.errorDescription(code).contains("\(code)"))
    }
}

@Suite("POSIXText: addresses")
struct AddressTextTests {
    @Test("IPv4: 4 bytes in network order")
    func ipv4() {
        #expect(POSIXText.address([192, 0, 2, 1] as [UInt8]) == "192.0.2.1")
        #expect(POSIXText.address([0, 0, 0, 0] as [UInt8]) == "0.0.0.0")
        #expect(POSIXText.address([255, 255, 255, 255] as [UInt8]) == "255.255.255.255")
    }

    @Test("IPv6: 16 bytes, zeros compressed as inet_ntop does")
    func ipv6() {
        let documentation: [UInt8] = [0x20, 0x01, 0x0D, 0xB8] + [UInt8](repeating: 0, count: 11) + [1]
        #expect(POSIXText.address(documentation) == "2001:db8::1")
        #expect(POSIXText.address([UInt8](repeating: 0, count: 16)) == "::")
        let mapped: [UInt8] = [UInt8](repeating: 0, count: 10) + [0xFF, 0xFF, 10, 0, 0, 7]
        #expect(POSIXText.address(mapped) == "::ffff:10.0.0.7")
    }

    @Test("a scope is appended after %; an empty or absent one is not")
    func scoped() {
        let linkLocal: [UInt8] = [0xFE, 0x80] + [UInt8](repeating: 0, count: 13) + [1]
        #expect(POSIXText.address(linkLocal, scope: "eth0") == "fe80::1%eth0")
        #expect(POSIXText.address(linkLocal, scope: "") == "fe80::1")
        #expect(POSIXText.address(linkLocal, scope: nil) == "fe80::1")
    }

    @Test("bytes neither 4 nor 16 long are no address", arguments: [0, 1, 3, 5, 6, 15, 17, 32])
    func badLength(count: Int) {
        #expect(POSIXText.address([UInt8](repeating: 1, count: count)) == nil)
        #expect(POSIXText.address([UInt8](repeating: 1, count: count), scope: "eth0") == nil)
    }

    @Test("the raw-buffer form reads a C structure's address in place")
    func rawBuffer() {
        var address = in_addr()
        address.s_addr = UInt32(0x0A00_0001).bigEndian
        #expect(withUnsafeBytes(of: address) { POSIXText.address($0) } == "10.0.0.1")
        #expect(withUnsafeBytes(of: in6_addr()) { POSIXText.address($0) } == "::")
    }
}

@Suite("POSIXText: interface names")
struct InterfaceNameTests {
    @Test("the loopback interface's index has its name")
    func loopback() {
        let index = if_nametoindex("lo")
        #expect(index != 0)
        #expect(POSIXText.interfaceName(index: index) == "lo")
    }

    @Test("index 0 and an index no interface has are no name", arguments: [UInt32(0), UInt32(Int32.max)])
    func none(index: UInt32) {
        #expect(POSIXText.interfaceName(index: index) == nil)
    }
}

@Suite("POSIXText: a small file's text")
struct FileTextTests {
    @Test("a file of /proc is read whole, over several reads")
    func aProcFileIsReadWhole() throws {
        let maps = try #require(POSIXText.fileText("/proc/self/maps"))
        let status = try #require(POSIXText.fileText("/proc/self/status"))
        #expect(status.hasPrefix("Name:"))
        #expect(status.hasSuffix("\n"))
        #expect(maps.utf8.count > 4096)  // /proc hands out a page at most per read(2): several reads
        #expect(maps.split(separator: "\n").allSatisfy { $0.contains("-") })
    }

    @Test("a file that cannot be opened is no text")
    func aMissingFileIsNil() {
        #expect(POSIXText.fileText("/proc/self/no-such-file") == nil)
    }
}
