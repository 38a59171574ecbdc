import Foundation
import Testing

@testable import PeerscanctlProgram

@Suite struct WebURLCommandTests {
    @Test func theTokenIsTheFileLessOneTrailingNewline() throws {
        #expect(try WebURLCommand.token(in: Data("abc\n".utf8)) == "abc")
        #expect(try WebURLCommand.token(in: Data("abc".utf8)) == "abc")
        #expect(throws: TokenFileError.self) { try WebURLCommand.token(in: Data("\n".utf8)) }
        #expect(throws: TokenFileError.self) { try WebURLCommand.token(in: Data([0xFF, 0xFE])) }
    }

    @Test func theURLCarriesTheTokenInItsFragmentEncoded() {
        #expect(WebURLCommand.url(address: "127.0.0.1:8737", token: "ab12") == "http://127.0.0.1:8737/#token=ab12")
        #expect(WebURLCommand.url(address: "[::1]:80", token: "a b&c") == "http://[::1]:80/#token=a%20b%26c")
    }

    @Test func optionsParse() throws {
        let command = try WebURLCommand.parse(["--token-file", "/tmp/t", "--address", "localhost:9000"])
        #expect(command.tokenFile == "/tmp/t" && command.address == "localhost:9000")
        #expect(try WebURLCommand.parse([]).tokenFile == "/var/lib/peerscan-web/token")
    }
}
