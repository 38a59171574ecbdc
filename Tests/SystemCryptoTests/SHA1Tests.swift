// SHA-1 through libcrypto: the FIPS 180 / NIST example messages, the empty message, and RFC 9562's version 5 vector.

import SystemCrypto
import Testing

@Suite struct SHA1Tests {
    private static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    @Test(arguments: [
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1"
        ),
        (
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
                + "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            "a49b2446a02c645bf419f995b67091253a04a259"
        ),
        ("The quick brown fox jumps over the lazy dog", "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12"),
    ])
    func matchesTheKnownDigest(message: String, digest: String) throws {
        #expect(Self.hex(try SHA1.hash(Array(message.utf8))) == digest)
    }

    @Test func hashesAMillionAs() throws {
        let message = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(Self.hex(try SHA1.hash(message)) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }

    @Test func theBufferAndArrayFormsAgree() throws {
        let message = Array("tv.local".utf8)
        let fromBuffer = try message.withUnsafeBytes { try SHA1.hash($0) }
        #expect(try SHA1.hash(message) == fromBuffer)
        #expect(fromBuffer.count == SHA1.byteCount)
        #expect(try SHA1.hash(UnsafeRawBufferPointer(start: nil, count: 0)) == SHA1.hash([]))
    }

    // RFC 9562, appendix A.4: the first 16 bytes of the SHA-1 of the DNS namespace's bytes and "www.example.com" are
    // the v5 UUID 2ed6657d-e927-568b-95e1-2665a8aea6a2 before the version and variant bits go into bytes 6 and 8.
    @Test func hashesTheNameOfRFC9562sVersion5Example() throws {
        let dnsNamespace: [UInt8] = [
            0x6b, 0xa7, 0xb8, 0x10, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8,
        ]
        let digest = try SHA1.hash(dnsNamespace + Array("www.example.com".utf8))
        #expect(Self.hex(digest) == "2ed6657de927468b55e12665a8aea6a22dee3e35")
    }
}
