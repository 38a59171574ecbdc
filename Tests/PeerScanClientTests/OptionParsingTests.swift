import ArgumentParser
import PeerScanModel
import PeerScanServer
import Testing

@testable import peerscanctl

@Suite("Command-line parsing")
struct OptionParsingTests {
    @Test("the socket: the flag wins over PEERSCAN_SOCKET, which wins over the default")
    func socketResolution() throws {
        let plain = try #require(try Peerscanctl.parseAsRoot(["list"]) as? ListCommand)
        #expect(plain.connection.socketPath(environment: [:]) == PeerScanWire.defaultSocketPath)
        #expect(plain.connection.socketPath(environment: ["PEERSCAN_SOCKET": "/tmp/env.sock"]) == "/tmp/env.sock")
        #expect(plain.connection.socketPath(environment: ["PEERSCAN_SOCKET": ""]) == PeerScanWire.defaultSocketPath)

        let flagged = try #require(try Peerscanctl.parseAsRoot(["list", "--socket", "/tmp/flag.sock"]) as? ListCommand)
        #expect(flagged.connection.socketPath(environment: [:]) == "/tmp/flag.sock")
        #expect(flagged.connection.socketPath(environment: ["PEERSCAN_SOCKET": "/tmp/env.sock"]) == "/tmp/flag.sock")
    }

    @Test("every subcommand takes --socket")
    func socketEverywhere() throws {
        let watch = try #require(try Peerscanctl.parseAsRoot(["watch", "--socket=/a"]) as? WatchCommand)
        #expect(watch.connection.socket == "/a")
        let scanning = try #require(
            try Peerscanctl.parseAsRoot(["scanning", "status", "--socket", "/b"]) as? ScanningCommand
        )
        #expect(scanning.connection.socket == "/b")
    }

    @Test("list and watch flags")
    func flags() throws {
        #expect(try #require(try Peerscanctl.parseAsRoot(["list", "--json"]) as? ListCommand).json)
        #expect(try #require(try Peerscanctl.parseAsRoot(["list"]) as? ListCommand).json == false)
        let watch = try #require(try Peerscanctl.parseAsRoot(["watch", "--timestamps"]) as? WatchCommand)
        #expect(watch.timestamps && !watch.json)
        #expect(try #require(try Peerscanctl.parseAsRoot(["watch", "--json"]) as? WatchCommand).json)
    }

    @Test(
        "scanning on, off, status",
        arguments: [("on", ScanningCommand.Action.on), ("off", .off), ("status", .status)]
    )
    func scanningActions(_ argument: String, _ action: ScanningCommand.Action) throws {
        #expect(try #require(try Peerscanctl.parseAsRoot(["scanning", argument]) as? ScanningCommand).action == action)
    }

    @Test(
        "usage errors exit with 64",
        arguments: [
            ["scanning"],
            ["scanning", "maybe"],
            ["watch", "--json", "--timestamps"],
            ["list", "--socket"],
            ["list", "--colour"],
            ["frobnicate"],
        ]
    )
    func usageErrors(_ arguments: [String]) {
        do {
            _ = try Peerscanctl.parseAsRoot(arguments)
            Issue.record("\(arguments) parsed")
        } catch {
            #expect(Peerscanctl.exitCode(for: error).rawValue == 64)
        }
    }
}
