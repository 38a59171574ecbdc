import Foundation
import Glibc
import TestSupport
import Testing
import Varlink
import VarlinkServer

@Suite("VarlinkClientConnection", .timeLimit(.minutes(1)))
struct VarlinkClientConnectionTests {
    typealias Text = TestInterface.Text

    @Test("nothing at the path: notListening")
    func nothingThere() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/absent.sock"
            await #expect(throws: VarlinkConnectError.notListening(path: path)) {
                try await VarlinkClientConnection.withConnection(to: path) { _ in }
            }
        }
    }

    @Test("a directory of the path missing: notListening")
    func missingDirectory() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/run/absent.sock"
            await #expect(throws: VarlinkConnectError.notListening(path: path)) {
                try await VarlinkClientConnection.withConnection(to: path) { _ in }
            }
        }
    }

    @Test("a socket the caller may not reach (directory or socket permissions): permissionDenied")
    func permissionDenied() async throws {
        // The child process gives up root (if it has it) so that permissions apply to it.
        let directory = "/tmp/vlt-denied-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try? FileManager.default.removeItem(atPath: directory)
        #expect(mkdir(directory, 0o755) == 0 && chmod(directory, 0o755) == 0)
        #expect(mkdir(directory + "/closed", 0o700) == 0 && chmod(directory + "/closed", 0o000) == 0)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let inClosedDirectory = try SocketFile.listen(at: directory + "/closed/test.sock")
        defer { close(inClosedDirectory) }
        let privateSocket = try SocketFile.listen(at: directory + "/private.sock")
        defer { close(privateSocket) }
        #expect(chmod(directory + "/private.sock", 0o600) == 0)
        await #expect(processExitsWith: .success) { [directory = directory as String] in
            dropPrivilegesIfRoot()
            for path in [directory + "/closed/test.sock", directory + "/private.sock"] {
                do {
                    try await VarlinkClientConnection.withConnection(to: path) { _ in }
                    Issue.record("\(path): connected")
                    exit(1)
                } catch let error as VarlinkConnectError where error == .permissionDenied(path: path) {
                    continue
                } catch {
                    Issue.record("\(path): \(error)")
                    exit(1)
                }
            }
            exit(EXIT_SUCCESS)
        }
    }

    @Test("a stale socket: notListening")
    func staleSocket() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/stale.sock"
            try SocketFile.makeStale(at: path)
            await #expect(throws: VarlinkConnectError.notListening(path: path)) {
                try await VarlinkClientConnection.withConnection(to: path) { _ in }
            }
        }
    }

    @Test("an error reply surfaces as the VarlinkError, with its parameters")
    func errorReply() async throws {
        try await withTestServer { server in
            try await VarlinkClientConnection.withConnection(to: server.path) { connection in
                do {
                    _ = try await connection.call("org.example.test.Fail", ["reason": "on purpose"], as: Text.self)
                    Issue.record("the call succeeded")
                } catch let error as VarlinkError {
                    #expect(error.name == "org.example.test.Failed")
                    #expect(error.parameters == ["reason": "on purpose", "code": "42"])
                }
                // A standard error, without parameters.
                await #expect(throws: VarlinkError.expectedMore) {
                    try await connection.call("org.example.test.Count", ["count": 1], as: Text.self)
                }
            }
        }
    }

    @Test("the server going away mid-call: connectionClosed")
    func serverGoesAway() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/test.sock"
            let listener = try SocketFile.listen(at: path)
            defer { close(listener) }
            // The other side: accept, read the call, and hang up without replying.
            async let hungUp: Void = onOwnThread {
                let accepted = accept(listener, nil, nil)
                guard accepted >= 0 else { throw POSIXFailure("accept") }
                defer { close(accepted) }
                var byte: UInt8 = 1
                while byte != 0 {
                    guard recv(accepted, &byte, 1, 0) == 1 else { throw POSIXFailure("recv") }
                }
            }
            try await VarlinkClientConnection.withConnection(to: path) { connection in
                await #expect(throws: VarlinkProtocolError.connectionClosed) {
                    try await connection.call("org.example.test.Echo", ["text": "?"], as: Text.self)
                }
                return ()
            }
            try await hungUp
        }
    }

    @Test("a reply that is not JSON: invalidMessage")
    func invalidReply() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/test.sock"
            let listener = try SocketFile.listen(at: path)
            defer { close(listener) }
            try await VarlinkClientConnection.withConnection(to: path) { connection in
                let accepted = accept(listener, nil, nil)
                defer { close(accepted) }
                _ = Array("not json\0".utf8).withUnsafeBytes {
                    send(accepted, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                let error = await #expect(throws: VarlinkProtocolError.self) {
                    try await connection.call("org.example.test.Echo", ["text": "?"], as: Text.self)
                }
                guard case .invalidMessage = error else {
                    Issue.record("expected invalidMessage, got \(String(describing: error))")
                    return
                }
            }
        }
    }

    @Test("after callMore stops early, the next call does not get the stream's leftover replies as its own")
    func callMoreStoppedEarly() async throws {
        try await withTestServer { server in
            try await VarlinkClientConnection.withConnection(to: server.path) { connection in
                var seen = 0
                try await connection.callMore("org.example.test.Count", ["count": 3]) { _ in
                    seen += 1
                    return false
                }
                #expect(seen == 1)
                // The stream's replies 1 and 2 are still on the way. Whatever the client does about them (drain
                // them, refuse the call, close the connection), it must not hand one over as Echo's reply.
                do {
                    let reply = try await connection.call("org.example.test.Echo", ["text": "mine"], as: Text.self)
                    #expect(reply.text == "mine")
                } catch {
                    // Refusing is fine.
                }
            }
        }
    }
}
