import Foundation
import Glibc
import Logging
import TestSupport
import Testing
import Varlink
import VarlinkServer

/// The listening socket: its permissions, what the server does with whatever is already at its path, removal at
/// exit, and a socket passed in (socket activation).
@Suite("VarlinkServer: the listening socket", .timeLimit(.minutes(1)))
struct VarlinkListenerTests {
    typealias Text = TestInterface.Text

    private func echo(_ text: String, at path: String) async throws -> String {
        try await VarlinkClientConnection.withConnection(to: path) {
            try await $0.call("org.example.test.Echo", ["text": text], as: Text.self).text
        }
    }

    @Test("the socket gets the requested permissions", arguments: [0o600, 0o660, 0o666] as [mode_t])
    func permissions(permissions: mode_t) async throws {
        try await withTestServer(permissions: permissions) { server in
            let status = try #require(fileStatus(server.path))
            #expect(status.st_mode & S_IFMT == S_IFSOCK)
            #expect(status.st_mode & 0o7777 == permissions)
            // No temporary socket is left next to it.
            #expect(try FileManager.default.contentsOfDirectory(atPath: server.directory) == ["test.sock"])
        }
    }

    @Test("missing directories are created")
    func createsDirectories() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/run/peerscan/test.sock"
            try await serving(.path(path, permissions: 0o600)) { () async throws in
                #expect(try await echo("here", at: path) == "here")
                let status = try #require(fileStatus(directory + "/run/peerscan"))
                #expect(status.st_mode & S_IFMT == S_IFDIR)
            }
        }
    }

    @Test("a stale socket (bound, then closed) is replaced")
    func staleSocketReplaced() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/test.sock"
            try SocketFile.makeStale(at: path)
            #expect(!(try await isListening(path)))
            try await serving(.path(path, permissions: 0o600)) { () async throws in
                #expect(try await echo("fresh", at: path) == "fresh")
            }
        }
    }

    @Test("a live server on the path: alreadyServed, and the first one keeps serving on the same socket")
    func alreadyServed() async throws {
        try await withTestServer { server in
            let before = try #require(fileStatus(server.path))
            let second = VarlinkServer(
                listener: .path(server.path, permissions: 0o666),
                interfaces: [],
                info: testInfo,
                logger: Logger.silent
            )
            await #expect(throws: VarlinkServerError.alreadyServed(path: server.path)) { try await second.run() }
            let after = try #require(fileStatus(server.path))
            #expect(after.st_ino == before.st_ino)
            #expect(after.st_mode == before.st_mode)
            #expect(try await echo("first", at: server.path) == "first")
        }
    }

    @Test("a live socket whose owner never accepts (full backlog): alreadyServed at once, no hang")
    func ownerThatNeverAccepts() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/test.sock"
            let listener = try SocketFile.listen(at: path, backlog: 0)
            defer { close(listener) }
            // Fill the backlog: non-blocking connects until the kernel refuses more (EAGAIN).
            var pending: [Int32] = []
            defer { for descriptor in pending { close(descriptor) } }
            while pending.count < 64 {
                let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
                let connected = try SocketAddress.withUnixAddress(path) { connect(descriptor, $0, $1) == 0 }
                pending.append(descriptor)
                if !connected { break }
            }
            let server = VarlinkServer(
                listener: .path(path, permissions: 0o666),
                interfaces: [],
                info: testInfo,
                logger: Logger.silent
            )
            let clock = ContinuousClock()
            let started = clock.now
            await #expect(throws: VarlinkServerError.alreadyServed(path: path)) { try await server.run() }
            #expect(clock.now - started < .seconds(10), "a blocking probe would hang until the owner accepts")
        }
    }

    @Test("a regular file at the path: notASocket, and the file is left as it was")
    func notASocket() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/test.sock"
            let contents = Data("precious data\n".utf8)
            try contents.write(to: URL(fileURLWithPath: path))
            let server = VarlinkServer(
                listener: .path(path, permissions: 0o600),
                interfaces: [],
                info: testInfo,
                logger: Logger.silent
            )
            await #expect(throws: VarlinkServerError.notASocket(path: path)) { try await server.run() }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == contents)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["test.sock"])
        }
    }

    @Test("a directory at the path: notASocket, and it is left alone")
    func directoryAtPath() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/test.sock"
            #expect(mkdir(path, 0o700) == 0)
            let server = VarlinkServer(
                listener: .path(path, permissions: 0o600),
                interfaces: [],
                info: testInfo,
                logger: Logger.silent
            )
            await #expect(throws: VarlinkServerError.notASocket(path: path)) { try await server.run() }
            #expect(fileStatus(path).map { $0.st_mode & S_IFMT } == S_IFDIR)
        }
    }

    @Test("the socket file is removed when the server stops, even with a client connected")
    func removedAtExit() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/test.sock"
            let recorder = Recorder()
            let client = try await serving(.path(path, permissions: 0o600), recorder: recorder) {
                let client = try RawSocket(connectingTo: path)
                try await client.send(message: callMessage("org.example.test.Wait", more: true))
                #expect(await recorder.waitFor("Wait entered"))
                return client
            }
            #expect(fileStatus(path) == nil)
            #expect(recorder.contains("Wait cancelled"))
            #expect(try await client.readMessagesUntilClosed() == [], "the connection was closed")
        }
    }

    @Test("a path at NIO's limit for socket paths (103 bytes) is served")
    func longPath() async throws {
        try await withTemporaryDirectory { directory in
            // 103 bytes: the longest path NIO accepts; the temporary name beside it would be longer.
            let path = directory + "/" + String(repeating: "s", count: 102 - directory.utf8.count)
            #expect(path.utf8.count == 103)
            try await serving(.path(path, permissions: 0o600)) { () async throws in
                #expect(try await echo("long", at: path) == "long")
            }
        }
    }

    @Test("a relative path in missing directories is created relative to the working directory")
    func relativePath() async throws {
        // In a child process: it changes its working directory, and runs unprivileged so that nothing can be
        // created outside the test's directory by mistake.
        let directory = "/tmp/vlt-relative-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try? FileManager.default.removeItem(atPath: directory)
        #expect(mkdir(directory, 0o777) == 0 && chmod(directory, 0o777) == 0)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        await #expect(processExitsWith: .success) { [directory = directory as String] in
            guard chdir(directory) == 0 else { exit(3) }
            dropPrivilegesIfRoot()
            do {
                try await serving(.path("run/varlink/test.sock", permissions: 0o600)) { () async throws in
                    _ = try await VarlinkClientConnection.withConnection(to: "run/varlink/test.sock") {
                        try await $0.call("org.example.test.Echo", ["text": "x"], as: TestInterface.Text.self)
                    }
                }
            } catch {
                Issue.record("serving run/varlink/test.sock from \(directory): \(error)")
                exit(1)
            }
            exit(EXIT_SUCCESS)
        }
    }

    @Test("socket activation: a listening socket passed as a descriptor is served")
    func fileDescriptor() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/activated.sock"
            let descriptor = try SocketFile.listen(at: path)
            // A client may connect before the server runs, as with systemd: the kernel queues it.
            let early = try RawSocket(connectingTo: path)
            try await early.send(message: callMessage("org.example.test.Echo", #"{"text":"early"}"#))
            try await serving(.fileDescriptor(descriptor)) { () async throws in
                #expect(try await early.readReply() == ["parameters": ["text": "early"]])
                #expect(try await echo("activated", at: path) == "activated")
            }
            // The socket file belongs to whoever made it (systemd): it stays.
            #expect(fileStatus(path).map { $0.st_mode & S_IFMT } == S_IFSOCK)
        }
    }

    /// Whether something accepts connections at `path`.
    private func isListening(_ path: String) async throws -> Bool {
        do {
            _ = try RawSocket(connectingTo: path)
            return true
        } catch let failure as POSIXFailure where failure.errno == ECONNREFUSED {
            return false
        }
    }
}
