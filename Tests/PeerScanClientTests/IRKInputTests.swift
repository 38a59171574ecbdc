// `peerscanctl set --irk -` and `--irk-file PATH`: a key kept off the command line, in the forms --irk takes.

import Foundation
import PeerScanClient
import PeerScanModel
import TestSupport
import Testing

@testable import PeerscanctlProgram

private let hex = "ec0234a357c8ad05341010a60a397d9b"
private let expected = IdentityResolvingKey(hex: hex)

@Suite struct IRKInputTests {
    @Test func `--irk - and --irk-file parse as the key's source, and not both at once`() throws {
        let piped = try #require(try Peerscanctl.parseAsRoot(["set", "phone", "--irk", "-"]) as? SetCommand)
        #expect(piped.irkInput == .standardInput)
        #expect(piped.key == nil, "not a key on the command line")
        let filed = try #require(try Peerscanctl.parseAsRoot(["set", "phone", "--irk-file", "/k"]) as? SetCommand)
        #expect(filed.irkInput == .file("/k"))
        #expect(throws: (any Error).self) {
            try Peerscanctl.parseAsRoot(["set", "phone", "--irk", hex, "--irk-file", "/k"])
        }
    }

    @Test func `standard input gives its first line, in every form --irk takes`() throws {
        for line in [hex, " irk:\(hex.uppercased()) ", "m305CqYQEDQFrchXozQC7A=="] {
            #expect(try IRKInput.standardInput.key { line } == expected)
        }
        #expect(try IRKInput.standardInput.key { "none" } == nil, "none removes the key")
    }

    @Test func `empty or malformed standard input is a usage error that never shows the text`() {
        for line: String? in [nil, "", "  "] {
            let error = #expect(throws: ClientFailure.self) { try IRKInput.standardInput.key { line } }
            #expect(error?.status == .usage)
            #expect(error?.message.contains("standard input is empty") == true)
        }
        let secret = "ec0234a357c8ad05341010a60a397d9"  // one digit short
        let error = #expect(throws: ClientFailure.self) { try IRKInput.standardInput.key { secret } }
        #expect(error?.status == .usage)
        #expect(error?.message.contains("is not an IRK") == true)
        #expect(error?.message.contains(secret) == false, "a key, even a wrong one, is never printed")
    }

    @Test func `a key file holds one key, with its line break`() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/irk"
            try Data("irk:\(hex)\n".utf8).write(to: URL(fileURLWithPath: path))
            #expect(try IRKInput.file(path).key() == expected)
            try Data("none\n".utf8).write(to: URL(fileURLWithPath: path))
            #expect(try IRKInput.file(path).key() == nil)
        }
    }

    @Test func `an empty, unreadable, malformed or oversized key file is a clear error`() async throws {
        try await withTemporaryDirectory { directory in
            func failure(_ path: String) -> ClientFailure? {
                #expect(throws: ClientFailure.self) { try IRKInput.file(path).key() }
            }
            let empty = directory + "/empty"
            try Data("\n".utf8).write(to: URL(fileURLWithPath: empty))
            #expect(failure(empty)?.message == "--irk-file \(empty) is empty: expected \(IRKInput.expected)")
            #expect(failure(empty)?.status == .usage)

            let missing = directory + "/missing"
            #expect(failure(missing)?.message == "--irk-file \(missing) cannot be read: No such file or directory")
            #expect(failure(missing)?.status == .failure)
            #expect(failure(directory)?.message == "--irk-file \(directory) cannot be read: Is a directory")

            let two = directory + "/two"
            try Data("\(hex)\n\(hex)\n".utf8).write(to: URL(fileURLWithPath: two))
            #expect(failure(two)?.message == "--irk-file \(two) is not an IRK: expected \(IRKInput.expected)")

            let large = directory + "/large"
            try Data(repeating: 0x30, count: IRKInput.maximumFileSize + 1).write(to: URL(fileURLWithPath: large))
            #expect(failure(large)?.status == .usage)
            #expect(failure(large)?.message.contains("over \(IRKInput.maximumFileSize) bytes") == true)
        }
    }
}
