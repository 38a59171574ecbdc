import Foundation
import Testing

@testable import PeerscanWeb

@Suite struct TokenFileTests {
    private func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "peerscan-web-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func readDropsOneTrailingNewline() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/token"
        try Data("abc\n".utf8).write(to: URL(fileURLWithPath: path))
        #expect(try TokenFile(path: path).read() == "abc")
        try Data("abc".utf8).write(to: URL(fileURLWithPath: path))
        #expect(try TokenFile(path: path).read() == "abc")
        try Data("abc\n\n".utf8).write(to: URL(fileURLWithPath: path))
        #expect(try TokenFile(path: path).read() == "abc\n")
    }

    @Test func anEmptyOrMissingFileIsAnError() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(throws: TokenFile.Failure.self) { try TokenFile(path: directory + "/missing").read() }
        try Data("\n".utf8).write(to: URL(fileURLWithPath: directory + "/empty"))
        #expect(throws: TokenFile.Failure.self) { try TokenFile(path: directory + "/empty").read() }
    }

    @Test func readOrCreateMakesATokenOnceWithMode0640() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = TokenFile(stateDirectory: directory)
        let token = try file.readOrCreate()
        #expect(token.count == 64 && token.allSatisfy(\.isHexDigit))
        #expect(try file.readOrCreate() == token)
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o640)
    }

    @Test func aDirectoryThatCannotBeWrittenIsAClearError() {
        let failure = #expect(throws: TokenFile.Failure.self) {
            try TokenFile(stateDirectory: "/nonexistent/peerscan-web").readOrCreate()
        }
        #expect(failure?.description.contains("/nonexistent/peerscan-web/token") == true)
    }

    @Test func tokensDiffer() {
        #expect(TokenFile.makeToken() != TokenFile.makeToken())
    }
}
