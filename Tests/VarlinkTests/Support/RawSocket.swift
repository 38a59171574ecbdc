import Foundation
import Glibc
import NIOConcurrencyHelpers
import TestSupport

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
