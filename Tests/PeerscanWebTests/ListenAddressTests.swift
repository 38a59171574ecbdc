import Testing

@testable import PeerscanWeb

@Suite struct ListenAddressTests {
    @Test(arguments: [
        ("127.0.0.1:8737", ListenAddress.tcp(host: "127.0.0.1", port: 8737)),
        ("0.0.0.0:80", .tcp(host: "0.0.0.0", port: 80)),
        ("[::1]:8737", .tcp(host: "::1", port: 8737)),
        ("[fe80::1]:1", .tcp(host: "fe80::1", port: 1)),
        ("/run/peerscan-web/http", .unixSocket(path: "/run/peerscan-web/http")),
    ])
    func parses(text: String, expected: ListenAddress) throws {
        #expect(try ListenAddress(parsing: text) == expected)
    }

    @Test(arguments: [
        "", "8737", "localhost:8737", "127.0.0.1", "127.0.0.1:0", "127.0.0.1:65536", "127.0.0.1:x",
        "::1:8737", "[::1", "[nothex::]:80", "256.0.0.1:80", "1.2.3:80", "relative/path",
    ])
    func refuses(text: String) {
        #expect(throws: ListenAddress.ParseError.self) { try ListenAddress(parsing: text) }
    }

    @Test func describesAsParsed() throws {
        #expect(try ListenAddress(parsing: "[::1]:8737").description == "[::1]:8737")
        #expect(ListenAddress.default.description == "127.0.0.1:8737")
    }

    @Test(arguments: [
        ("127.0.0.1", true), ("127.255.0.9", true), ("::1", true), ("::ffff:127.0.0.1", true),
        ("10.0.0.1", false), ("0.0.0.0", false), ("::", false), ("fe80::1", false), ("128.0.0.1", false),
    ])
    func loopback(address: String, isLoopback: Bool) {
        #expect(IPAddressText.isLoopback(address) == isLoopback)
    }
}
