import ArgumentParser
import PeerScanModel
import PeerScanServer
import Testing

@testable import PeerscanctlProgram

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

    @Test("set changes only what is given: '' clears, --no-important unmarks, nothing at all is a usage error")
    func setLabel() throws {
        let named = try #require(
            try Peerscanctl.parseAsRoot(["set", "plug", "--name", "Kitchen plug", "--important"]) as? SetCommand
        )
        #expect(named.device == "plug")
        #expect(named.edit == DeviceLabelEdit(name: "Kitchen plug", isImportant: true))
        let cleared = try #require(
            try Peerscanctl.parseAsRoot(["set", "plug", "--name", "", "--note", "", "--no-important"]) as? SetCommand
        )
        #expect(cleared.edit == DeviceLabelEdit(name: "", note: "", isImportant: false))
        #expect(cleared.edit.applied(to: DeviceLabel(name: "a", note: "b", isImportant: true)) == .none)
    }

    @Test("set --irk takes 32 hex digits or none, alone or with a label; anything else is a usage error")
    func setIRK() throws {
        let bound = try #require(
            try Peerscanctl.parseAsRoot(["set", "phone", "--irk", "EC0234A357C8AD05341010A60A397D9B"]) as? SetCommand
        )
        #expect(bound.key == .some(IdentityResolvingKey(hex: "ec0234a357c8ad05341010a60a397d9b")))
        #expect(bound.edit.isEmpty)
        let removed = try #require(try Peerscanctl.parseAsRoot(["set", "phone", "--irk", "none"]) as? SetCommand)
        #expect(removed.key == .some(nil))
        #expect(throws: (any Error).self) { try Peerscanctl.parseAsRoot(["set", "phone", "--irk", "0123"]) }
        // Home Assistant's forms: an irk: prefix, and the iOS keychain's base64, least significant octet first.
        for copied in [
            "irk:ec0234a357c8ad05341010a60a397d9b", "m305CqYQEDQFrchXozQC7A==", "irk:m305CqYQEDQFrchXozQC7A==",
        ] {
            let parsed = try #require(try Peerscanctl.parseAsRoot(["set", "phone", "--irk", copied]) as? SetCommand)
            #expect(parsed.key == .some(IdentityResolvingKey(hex: "ec0234a357c8ad05341010a60a397d9b")))
        }
        // Base64 of 15 bytes, and base64 in the hex parser's place: not a key.
        #expect(throws: (any Error).self) {
            try Peerscanctl.parseAsRoot(["set", "phone", "--irk", "m305CqYQEDQFrchXozQC"])
        }
        #expect(throws: (any Error).self) {
            try Peerscanctl.parseAsRoot(["set", "phone", "--irk", "AAAAAAAAAAAAAAAAAAAA"])
        }
        #expect(throws: (any Error).self) { try Peerscanctl.parseAsRoot(["set", "phone"]) }
    }

    @Test("merge takes the device and the others; split the device and a key")
    func mergeAndSplit() throws {
        let merge = try #require(
            try Peerscanctl.parseAsRoot(["merge", "phone", "aa:bb:cc:00:00:01", "tablet"]) as? MergeCommand
        )
        #expect(merge.device == "phone" && merge.others == ["aa:bb:cc:00:00:01", "tablet"])
        let split = try #require(
            try Peerscanctl.parseAsRoot(["split", "phone", "mac:aa:bb:cc:00:00:01"]) as? SplitCommand
        )
        #expect(split.device == "phone" && split.key == "mac:aa:bb:cc:00:00:01")
    }

    @Test("known lists the registry's devices; history, its old name, parses to the same options")
    func knownAndItsOldName() throws {
        let known = try #require(try Peerscanctl.parseAsRoot(["known", "--json", "--socket", "/k"]) as? KnownCommand)
        #expect(known.options.json && known.options.connection.socket == "/k")
        let old = try #require(try Peerscanctl.parseAsRoot(["history", "--json", "--socket", "/h"]) as? HistoryCommand)
        #expect(old.options.json && old.options.connection.socket == "/h")
        #expect(try #require(try Peerscanctl.parseAsRoot(["history"]) as? HistoryCommand).options.json == false)
    }

    @Test("wifi trust takes an SSID and a security of the protocol's; untrust and known an SSID and nothing")
    func wifiCommands() throws {
        let trust = try #require(
            try Peerscanctl.parseAsRoot(["wifi", "trust", "Home Net", "--security", "wpa2-personal"])
                as? WiFiTrustCommand
        )
        #expect(trust.ssid == "Home Net" && trust.security == .wpa2Personal)
        #expect(try #require(try Peerscanctl.parseAsRoot(["wifi", "trust", "x"]) as? WiFiTrustCommand).security == nil)
        #expect(throws: (any Error).self) { try Peerscanctl.parseAsRoot(["wifi", "trust", "x", "--security", "wpa9"]) }
        #expect(throws: (any Error).self) { try Peerscanctl.parseAsRoot(["wifi", "trust"]) }
        #expect(try #require(try Peerscanctl.parseAsRoot(["wifi", "untrust", "x"]) as? WiFiUntrustCommand).ssid == "x")
        #expect(try #require(try Peerscanctl.parseAsRoot(["wifi", "known", "--json"]) as? WiFiKnownCommand).json)
    }

    @Test("notify rules, set, clear and test")
    func notifyCommands() throws {
        let set = try #require(
            try Peerscanctl.parseAsRoot(["notify", "set", "nas", "offline", "online"]) as? NotifySetCommand
        )
        #expect(set.device == "nas")
        #expect(set.events == ["offline", "online"])
        #expect(
            try #require(try Peerscanctl.parseAsRoot(["notify", "set", "default"]) as? NotifySetCommand).events == []
        )
        #expect(
            try #require(try Peerscanctl.parseAsRoot(["notify", "clear", "default"]) as? NotifyClearCommand).device
                == "default"
        )
        #expect(try Peerscanctl.parseAsRoot(["notify", "rules"]) is NotifyRulesCommand)
        let test = try #require(
            try Peerscanctl.parseAsRoot(["notify", "test", "json://hook/", "--timeout", "5"]) as? NotifyTestCommand
        )
        #expect(test.destination == "json://hook/")
        #expect(test.timeout == 5)
        #expect(try #require(try Peerscanctl.parseAsRoot(["notify", "test"]) as? NotifyTestCommand).destination == nil)
        #expect(throws: (any Error).self) { try Peerscanctl.parseAsRoot(["notify", "clear"]) }
    }

    @Test("the help and the shell completions list known, not its old name history")
    func historyIsHidden() throws {
        let subcommands = Peerscanctl.helpMessage(columns: 200).split(separator: "\n", omittingEmptySubsequences: false)
            .drop { !$0.hasPrefix("SUBCOMMANDS:") }.dropFirst()
            .prefix { !$0.isEmpty }
            .compactMap { $0.split(separator: " ").first.map(String.init) }
        #expect(
            subcommands == [
                "list", "watch", "known", "show", "scanning", "set", "merge", "split", "forget", "wifi", "web-url",
                "notify",
            ]
        )
        // What a listed subcommand leaves in each script, found for known and absent for history.
        let traces = [
            CompletionShell.bash: ["_peerscanctl_NAME()", "|NAME|"],
            .zsh: ["_peerscanctl_NAME()", "'NAME:"],
            .fish: ["-fa 'NAME'", "\"peerscanctl NAME\""],
        ]
        for (shell, patterns) in traces {
            let script = Peerscanctl.completionScript(for: shell)
            for pattern in patterns {
                #expect(script.contains(pattern.replacing("NAME", with: "known")), "\(shell): \(pattern)")
                #expect(!script.contains(pattern.replacing("NAME", with: "history")), "\(shell): \(pattern)")
            }
        }
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
            ["set", "plug"],
            ["merge", "phone"],
            ["split", "phone"],
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
