import ArgumentParser
import PeerScanModel
import Testing

@testable import PeerscandProgram

/// peerscand's description (`--help`, and so the manual page scripts/generate-docs builds from it) held to what the
/// daemon does: every method of io.peerscan's definition and every source it has are named.
@Suite("peerscand --help")
struct HelpTextTests {
    /// The overview and discussion: what the manual page's description is made of.
    static let description = Peerscand.configuration.abstract + "\n" + Peerscand.configuration.discussion

    /// The methods io.peerscan.varlink declares (`method Name(`), in order.
    static let methods: [String] = PeerScanWire.definition.split(separator: "\n").compactMap { line in
        guard line.hasPrefix("method ") else { return nil }
        return String(line.dropFirst("method ".count).prefix { $0 != "(" })
    }

    @Test("the definition declares methods (the parsing above reads it)")
    func definitionHasMethods() {
        #expect(Self.methods.count >= 10)
        #expect(Self.methods.contains("GetSnapshot"))
    }

    @Test("--help names every method of the interface definition", arguments: methods)
    func namesMethod(_ method: String) {
        #expect(Self.description.contains(method), "--help does not name io.peerscan's method \(method)")
    }

    @Test("--help names every source the daemon has, and what it goes through", arguments: DaemonSource.allCases)
    func namesSource(_ source: DaemonSource) {
        for term in source.helpTerms {
            #expect(Self.description.contains(term), "--help does not name the \(source) source (\(term))")
        }
    }

    @Test("the full help carries the description")
    func helpCarriesDescription() {
        let help = Peerscand.helpMessage(columns: 10_000)
        #expect(help.contains("GetSnapshot"))
        #expect(help.contains("Bluetooth LE through BlueZ"))
    }

    @Test("--socket-mode: octal permissions up to 0777, parsed once", arguments: [("0660", 0o660), ("600", 0o600)])
    func socketMode(_ argument: String, _ mode: Int) throws {
        let options = try Peerscand.parse(["--socket-mode", argument])
        #expect(options.socketMode.mode == .init(mode))
        #expect(try Peerscand.parse([]).socketMode == .default)
        #expect(SocketPermissions.default.defaultValueDescription == "0666")
    }

    @Test("--socket-mode: anything else is refused", arguments: ["999", "1000", "rw", "", "-1"])
    func socketModeRefused(_ argument: String) {
        #expect(throws: (any Error).self) { try Peerscand.parse(["--socket-mode", argument]) }
    }
}
