import Diffable
import Foundation
import NIOCore
import PeerScanCore
import PeerScanModel
import PeerScanServer
import Testing
import Varlink

@testable import PeerScanClient

@Suite("Errors: messages and exit statuses")
struct ClientFailureTests {
    let path = "/run/peerscan/io.peerscan"

    func failure(_ error: any Error) -> ClientFailure { ClientFailure(error, socketPath: path) }

    @Test("nothing listening: 69, and how to start peerscand")
    func notListening() {
        let failure = failure(VarlinkConnectError.notListening(path: path))
        #expect(failure.status == .unavailable)
        #expect(failure.status.rawValue == 69)
        #expect(
            failure.message.split(separator: "\n").first
                == "peerscand is not running (nothing listening on /run/peerscan/io.peerscan). Start it: systemctl start peerscand.socket"
        )
    }

    @Test("permission denied connecting: 77, with what to check")
    func connectPermissionDenied() {
        let failure = failure(VarlinkConnectError.permissionDenied(path: path))
        #expect(failure.status.rawValue == 77)
        #expect(failure.message.contains("permission denied connecting to /run/peerscan/io.peerscan"))
    }

    @Test("another connection failure, or the connection lost: 69")
    func connectionFailures() {
        #expect(failure(VarlinkConnectError.failed(path: path, reason: "path too long")).status.rawValue == 69)
        #expect(failure(VarlinkProtocolError.connectionClosed).status.rawValue == 69)
        #expect(failure(IOError(errnoCode: ECONNRESET, reason: "read")).status.rawValue == 69)
    }

    @Test("io.peerscan.PermissionDenied: 77, the reason and how to join the group")
    func permissionDeniedReply() {
        let reply = VarlinkError(
            PeerScanWire.permissionDeniedError,
            parameters: ["reason": "switching scanning needs root or membership of group netadmins"]
        )
        let denied = failure(reply)
        #expect(denied.status == .permissionDenied)
        #expect(
            denied.message == """
                permission denied: switching scanning needs root or membership of group netadmins.
                Run it as root, or add yourself to group netadmins (sudo usermod -aG netadmins $USER) and log in again.
                """
        )
        let rootOnly = VarlinkError(
            PeerScanWire.permissionDeniedError,
            parameters: ["reason": "switching scanning needs root or membership of group root"]
        )
        #expect(failure(rootOnly).message.hasSuffix("Run it as root."))
        #expect(failure(VarlinkError.permissionDenied).status.rawValue == 77)
        #expect(failure(VarlinkError.permissionDenied).message.contains("group peerscan"))
    }

    @Test(
        "a missing interface or method, an unknown error, a malformed reply: 76",
        arguments: [
            VarlinkError.interfaceNotFound("io.peerscan"),
            VarlinkError.methodNotFound("io.peerscan.Monitor"),
            VarlinkError.methodNotImplemented("io.peerscan.Monitor"),
            VarlinkError.invalidParameter("since"),
            VarlinkError("io.peerscan.SomethingNew"),
        ]
    )
    func protocolMismatchReplies(_ error: VarlinkError) {
        let failure = failure(error)
        #expect(failure.status == .protocolMismatch)
        #expect(failure.message.hasPrefix("protocol mismatch: the server on /run/peerscan/io.peerscan answered with"))
    }

    @Test("an interface that is missing is named")
    func interfaceNamed() {
        #expect(failure(VarlinkError.interfaceNotFound("io.peerscan")).message.contains("no interface io.peerscan"))
    }

    @Test("undecodable replies and changesets that do not apply: 76")
    func protocolMismatchErrors() throws {
        #expect(
            failure(VarlinkProtocolError.invalidMessage("reply parameters: missing \"epoch\"")).status.rawValue == 76
        )
        #expect(failure(VarlinkProtocolError.messageTooLarge(limit: 16)).status.rawValue == 76)
        #expect(failure(ChangesetError(.identifierMismatch, "item x")).status.rawValue == 76)
        let decoding = #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(PeerScanWire.SnapshotReply.self, from: Data("{}".utf8))
        }
        #expect(failure(try #require(decoding)).status.rawValue == 76)
        #expect(failure(try #require(decoding)).message.contains(#"an undecodable reply (missing "epoch")"#))
        let toaster = #"""
            {"epoch":"e","sequence":1,"snapshot":{"sections":[{"id":"config","items":[\#
            {"id":"\#(DeviceID.host)","kind":"toaster"}]}]}}
            """#
        let badKind = #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(PeerScanWire.SnapshotReply.self, from: Data(toaster.utf8))
        }
        #expect(ClientFailure.describe(try #require(badKind)).hasPrefix("snapshot.sections[0].items[0]"))
    }

    @Test("what peerscand sent is quoted escaped; each line on standard error has its prefix, no control character")
    func errorRepliesAndLinesEscaped() {
        let reply = VarlinkError(
            PeerScanWire.cannotSplitError,
            parameters: ["reason": "key host:evil\u{1b}[2J.local\nis not bound"]
        )
        let refused = failure(reply)
        #expect(refused.message == "cannot split: key host:evil\\e[2J.local\\nis not bound")
        let lines = ClientFailure(.failure, "first \u{1b}[31mred\nsecond\u{9b}").errorLines
        #expect(lines == ["peerscanctl: first \\e[31mred", "peerscanctl: second\\u{9b}"])
    }

    @Test("a ClientFailure is kept; anything else is 1")
    func passThrough() {
        let kept = ClientFailure(.protocolMismatch, "x")
        #expect(failure(kept) == kept)
        struct Strange: Error {}
        #expect(failure(Strange()).status == .failure)
        #expect(failure(Strange()).status.rawValue == 1)
    }
}
