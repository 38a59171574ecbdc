// Shared by the test files: `org.example.test`, the interface the tests serve, a recorder of what its methods did,
// servers of it on a temporary socket, and a raw socket that sends what a well-behaved client never would. (The JSON
// value replies are read with is TestSupport's.)

import Foundation
import Glibc
import Logging
import NIOConcurrencyHelpers
import TestSupport
import Testing
import Varlink
import VarlinkServer

/// `org.example.test`: the interface the tests serve.
///
/// - `Echo(text)` replies with its parameters.
/// - `Count(count)` (`more` only) streams `count` replies `(index, text)`, `continues` on all but the last.
/// - `Fail(reason)` answers with the error `org.example.test.Failed(reason, code: "42")`.
/// - `Wait()` (`more`) waits until it is cancelled; it records `Wait entered` and `Wait cancelled`.
/// - `Gated()` (`more`) replies once, records `Gated entered`, waits until the test records `open` (or it is
///   cancelled: `Gated cancelled`), then replies a last time.
/// - `WhoAmI()` replies with the caller's credentials as the server saw them.
/// - `Prepared(text, mode, continues)` replies `(text)` through `reply(_:continues:)` (`mode: "plain"`), a
///   `VarlinkPreparedReply` made from the value (`"prepared"`) or from encoded JSON (`"encoded"`); a continuing reply
///   is followed by a last `(text: "end")`.
struct TestInterface: VarlinkInterface {
    let name = "org.example.test"
    let definition = """
        interface org.example.test

        method Echo(text: string) -> (text: string)
        method Count(count: int) -> (index: int, text: string)
        method Fail(reason: string) -> ()
        method Wait() -> ()
        method Gated() -> (step: int)
        method WhoAmI() -> (pid: int, uid: int, gid: int)
        method Prepared(text: string, mode: string, continues: ?bool) -> (text: string)

        error Failed (reason: string, code: string)

        """
    let recorder: Recorder

    struct Text: Codable, Sendable, Equatable {
        var text: String
    }

    func handle(_ call: VarlinkCall, context: VarlinkCallContext) async throws {
        switch call.methodName {
        case "Echo":
            try await context.reply(call.parameters(as: Text.self))
        case "Count":
            struct Parameters: Decodable { var count: Int }
            struct Reply: Encodable { var index: Int, text: String }
            guard call.more else { throw VarlinkError.expectedMore }
            let count = try call.parameters(as: Parameters.self).count
            for index in 0..<count {
                try await context.reply(Reply(index: index, text: "item \(index)"), continues: index < count - 1)
            }
        case "Fail":
            struct Parameters: Decodable { var reason: String }
            let reason = try call.parameters(as: Parameters.self).reason
            throw VarlinkError("org.example.test.Failed", parameters: ["reason": reason, "code": "42"])
        case "Wait":
            recorder.record("Wait entered")
            while !Task.isCancelled { try? await Task.sleep(for: .seconds(60)) }
            recorder.record("Wait cancelled")
        case "Gated":
            try await context.reply(["step": 1], continues: true)
            recorder.record("Gated entered")
            while !recorder.contains("open") && !Task.isCancelled { try? await Task.sleep(for: .milliseconds(5)) }
            if Task.isCancelled {
                recorder.record("Gated cancelled")
                return
            }
            try await context.reply(["step": 2])
        case "WhoAmI":
            struct Reply: Encodable { var pid: Int32, uid: UInt32, gid: UInt32 }
            guard let peer = context.peer else { throw VarlinkError("org.example.test.NoCredentials") }
            try await context.reply(Reply(pid: peer.pid, uid: peer.uid, gid: peer.gid))
        case "Prepared":
            struct Parameters: Decodable { var text: String, mode: String, continues: Bool? }
            let parameters = try call.parameters(as: Parameters.self)
            let reply = Text(text: parameters.text)
            let continues = parameters.continues ?? false
            switch parameters.mode {
            case "plain": try await context.reply(reply, continues: continues)
            case "prepared": try await context.reply(VarlinkPreparedReply(reply, continues: continues))
            case "encoded":
                // Encoded as the server encodes (sorted keys, slashes as is), so the bytes can be compared.
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                try await context.reply(
                    VarlinkPreparedReply(encodedParameters: encoder.encode(reply), continues: continues)
                )
            default: throw VarlinkError.invalidParameter("mode")
            }
            if continues { try await context.reply(Text(text: "end")) }
        default:
            throw VarlinkError.methodNotFound(call.method)
        }
    }
}

/// A second interface, so that GetInfo has something to sort.
struct OtherInterface: VarlinkInterface {
    let name = "org.example.other"
    let definition = "interface org.example.other\n\nmethod Ping() -> ()\n"

    func handle(_ call: VarlinkCall, context: VarlinkCallContext) async throws {
        try await context.reply([String: String]())
    }
}

/// Events the test interface records, for a test to wait on.
final class Recorder: Sendable {
    private let events = NIOLockedValueBox<[String]>([])

    func record(_ event: String) { events.withLockedValue { $0.append(event) } }
    func contains(_ event: String) -> Bool { events.withLockedValue { $0.contains(event) } }

    /// Waits until `event` was recorded; gives up (returning `false`) after a generous bound, so that a test that
    /// waits for an event that never happens fails instead of hanging. Nothing is asserted about the time taken.
    func waitFor(_ event: String) async -> Bool {
        await eventually(within: .seconds(20)) { contains(event) }
    }
}

let testInfo = VarlinkServer.Info(
    vendor: "Example",
    product: "varlink-tests",
    version: "1.2.3",
    url: "https://example.org"
)

/// Where a test server listens, and what its interface recorded.
struct TestServer: Sendable {
    let path: String
    let directory: String
    let recorder: Recorder
}

/// The server did not start (its error was thrown by `run()` instead).
struct ServerDidNotStart: Error {}

/// Runs a test server on `test.sock` in a fresh directory, runs `body`, then stops the server (cancels it) and
/// removes the directory.
@discardableResult
func withTestServer<Result>(
    permissions: mode_t = 0o600,
    maximumMessageSize: Int = 1 << 20,
    maximumPipelinedCalls: Int = 64,
    limits: ConnectionLimits = ConnectionLimits(),
    _ body: (TestServer) async throws -> Result
) async throws -> Result {
    try await withTemporaryDirectory { directory in
        let server = TestServer(path: directory + "/test.sock", directory: directory, recorder: Recorder())
        return try await serving(
            .path(server.path, permissions: permissions),
            recorder: server.recorder,
            maximumMessageSize: maximumMessageSize,
            maximumPipelinedCalls: maximumPipelinedCalls,
            limits: limits
        ) {
            try await body(server)
        }
    }
}

/// Runs a `VarlinkServer` with the test interfaces on `listener` in a task group; runs `body` once it listens,
/// then cancels it and waits for `run()` to return (it must not throw on cancellation).
/// - Throws: What `run()` threw if it failed before listening; what `body` threw.
@discardableResult
func serving<Result>(
    _ listener: VarlinkServer.Listener,
    recorder: Recorder = Recorder(),
    maximumMessageSize: Int = 1 << 20,
    maximumPipelinedCalls: Int = 64,
    limits: ConnectionLimits = ConnectionLimits(),
    _ body: () async throws -> Result
) async throws -> Result {
    let (ready, readyContinuation) = AsyncStream<Void>.makeStream()
    let server = VarlinkServer(
        listener: listener,
        interfaces: [TestInterface(recorder: recorder), OtherInterface()],
        info: testInfo,
        maximumMessageSize: maximumMessageSize,
        maximumPipelinedCalls: maximumPipelinedCalls,
        limits: limits,
        logger: Logger.silent,
        ready: { readyContinuation.yield() }
    )
    return try await withThrowingTaskGroup(of: Void.self, returning: Result.self) { group in
        group.addTask {
            defer { readyContinuation.finish() }
            try await server.run()
        }
        var readiness = ready.makeAsyncIterator()
        guard await readiness.next() != nil else {
            try await group.next()
            throw ServerDidNotStart()
        }
        do {
            let result = try await body()
            group.cancelAll()
            try await group.waitForAll()
            return result
        } catch {
            group.cancelAll()
            throw error
        }
    }
}

extension RawSocket {
    /// The next message, parsed; `nil` if the server closed the connection.
    func readReply() async throws -> JSON? {
        try await readMessage().map { try JSON(parsing: $0) }
    }
}

/// A call message, as JSON text.
func callMessage(_ method: String, _ parameters: String = "{}", more: Bool = false, oneway: Bool = false) -> String {
    var fields = [#""method":"\#(method)""#, #""parameters":\#(parameters)"#]
    if more { fields.append(#""more":true"#) }
    if oneway { fields.append(#""oneway":true"#) }
    return "{" + fields.joined(separator: ",") + "}"
}

/// The stat of a path, or `nil` if there is nothing there.
func fileStatus(_ path: String) -> stat? {
    var status = stat()
    return lstat(path, &status) == 0 ? status : nil
}

/// In a child process (an exit test) run as root: becomes `nobody`, so that file permissions apply. Exits with
/// status 2 if that fails. Does nothing when not root (permissions already apply).
func dropPrivilegesIfRoot() {
    guard geteuid() == 0 else { return }
    guard setgroups(0, nil) == 0, setgid(65534) == 0, setuid(65534) == 0 else { exit(2) }
}

// MARK: - A raw socket

/// A Unix stream socket driven with plain POSIX calls, to send bytes ``VarlinkClientConnection`` never would (broken
/// JSON, oversized messages, many calls in one write, a half-close) and to read replies byte for byte.
///
/// Reads and writes block, so they run on a thread of their own, never on the cooperative pool the server's tasks
/// need. Every read and write has a kernel timeout (`SO_RCVTIMEO`/`SO_SNDTIMEO`): a test that waits for a reply
/// that never comes fails instead of hanging.
final class RawSocket: Sendable {
    /// How long one read or write may block.
    static let timeoutSeconds = 20

    let descriptor: Int32
    private let pending = NIOLockedValueBox<[UInt8]>([])
    private let isClosed = NIOLockedValueBox(false)

    /// Connects to the socket at `path`.
    init(connectingTo path: String) throws {
        descriptor = try Self.makeStreamSocket()
        do {
            try SocketAddress.withUnixAddress(path) { address, length in
                guard connect(descriptor, address, length) == 0 else { throw POSIXFailure("connect(\(path))") }
            }
        } catch {
            Glibc.close(descriptor)
            throw error
        }
    }

    deinit { close() }

    /// Closes the socket (once).
    func close() {
        let wasClosed = isClosed.withLockedValue { closed in
            defer { closed = true }
            return closed
        }
        if !wasClosed { Glibc.close(descriptor) }
    }

    /// Shuts down the writing side: the server reads end-of-file, and may still reply.
    func shutdownWrite() throws {
        guard shutdown(descriptor, Int32(SHUT_WR)) == 0 else { throw POSIXFailure("shutdown") }
    }

    /// Sends `bytes` in as few writes as the kernel allows.
    func send(_ bytes: [UInt8]) async throws {
        let descriptor = self.descriptor
        try await onOwnThread {
            var offset = 0
            while offset < bytes.count {
                let sent = bytes[offset...].withUnsafeBytes {
                    Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                if sent < 0 && errno == EINTR { continue }
                guard sent > 0 else { throw POSIXFailure("send") }
                offset += sent
            }
        }
    }

    /// Sends messages, each followed by its NUL terminator, in one write.
    func send(messages: [String]) async throws {
        try await send(messages.flatMap { Array($0.utf8) + [0] })
    }

    /// Sends one message followed by its NUL terminator.
    func send(message: String) async throws {
        try await send(messages: [message])
    }

    /// The next message (without its terminator), or `nil` if the server closed the connection first.
    /// - Throws: `POSIXFailure` if nothing came within the timeout.
    func readMessage() async throws -> String? {
        try await readMessageBytes().map { String(decoding: $0, as: UTF8.self) }
    }

    /// The next message's bytes (without the terminator), or `nil` at end of file.
    func readMessageBytes() async throws -> [UInt8]? {
        while true {
            let message = pending.withLockedValue { pending -> [UInt8]? in
                guard let terminator = pending.firstIndex(of: 0) else { return nil }
                defer { pending.removeSubrange(...terminator) }
                return Array(pending[..<terminator])
            }
            if let message { return message }
            guard let chunk = try await readChunk() else { return nil }
            pending.withLockedValue { $0 += chunk }
        }
    }

    /// Every message until the server closes the connection.
    func readMessagesUntilClosed() async throws -> [String] {
        var messages: [String] = []
        while let message = try await readMessage() { messages.append(message) }
        return messages
    }

    /// One `recv`, or `nil` at end of file. A reset connection (the server closed it with our bytes unread) counts
    /// as closed too.
    private func readChunk() async throws -> [UInt8]? {
        let descriptor = self.descriptor
        return try await onOwnThread {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                if count > 0 { return Array(buffer[..<count]) }
                if count == 0 { return nil }
                switch errno {
                case EINTR: continue
                case ECONNRESET: return nil
                default: throw POSIXFailure("recv")
                }
            }
        }
    }

    /// A new `AF_UNIX` stream socket with the read and write timeouts set.
    static func makeStreamSocket() throws -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXFailure("socket") }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return descriptor
    }
}

/// Socket files made by hand, as systemd (socket activation) or a crashed server would leave them.
enum SocketFile {
    /// Binds a stream socket to `path` and listens on it; returns the descriptor (the caller owns it).
    static func listen(at path: String, backlog: Int32 = 16) throws -> Int32 {
        let descriptor = try RawSocket.makeStreamSocket()
        do {
            try SocketAddress.withUnixAddress(path) { address, length in
                guard bind(descriptor, address, length) == 0 else { throw POSIXFailure("bind(\(path))") }
            }
            guard Glibc.listen(descriptor, backlog) == 0 else { throw POSIXFailure("listen") }
        } catch {
            close(descriptor)
            throw error
        }
        return descriptor
    }

    /// Leaves a stale socket file at `path`: bound, never listened on, closed. Connecting to it is refused.
    static func makeStale(at path: String) throws {
        let descriptor = try RawSocket.makeStreamSocket()
        defer { close(descriptor) }
        try SocketAddress.withUnixAddress(path) { address, length in
            guard bind(descriptor, address, length) == 0 else { throw POSIXFailure("bind(\(path))") }
        }
    }
}

/// Builds `sockaddr_un` values.
enum SocketAddress {
    /// Calls `body` with the address of `path`; a path starting with `@` names the abstract namespace.
    static func withUnixAddress<Result>(
        _ path: String,
        _ body: (UnsafePointer<sockaddr>, socklen_t) throws -> Result
    ) throws -> Result {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        let isAbstract = bytes.first == UInt8(ascii: "@")
        if isAbstract { bytes[0] = 0 }
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw POSIXFailure("address too long: \(path)", errno: ENAMETOOLONG)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        // A path is NUL-terminated (the structure is zeroed); an abstract name's length is exact.
        let length = MemoryLayout<sa_family_t>.size + bytes.count + (isAbstract ? 0 : 1)
        return try withUnsafePointer(to: &address) {
            try $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { try body($0, socklen_t(length)) }
        }
    }
}

/// Runs blocking work on a new thread, so that it never holds a thread of the (small) cooperative pool.
func onOwnThread<Result: Sendable>(_ work: @escaping @Sendable () throws -> Result) async throws -> Result {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Swift.Result { try work() }) }
        thread.start()
    }
}
