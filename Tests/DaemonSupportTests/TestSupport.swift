// Shared by the test files: a socket bound as systemd would, a pipe, unique abstract socket names, and a reader of a
// descriptor on a thread of its own.

import Foundation
import Glibc
import TestSupport

/// A Unix socket bound by hand, on the receiving end as systemd would be. Closed when released.
final class BoundSocket {
    let descriptor: Int32

    /// Binds a socket of `type` to `path` (`@name` for the abstract namespace). Reads time out after 20 s, so that a
    /// test waiting for a datagram that never comes fails instead of hanging.
    init(type: __socket_type, path: String) throws {
        descriptor = socket(AF_UNIX, Int32(type.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXFailure("socket") }
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        let isAbstract = bytes.first == UInt8(ascii: "@")
        if isAbstract { bytes[0] = 0 }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (isAbstract ? 0 : 1))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0 else {
            let failure = POSIXFailure("bind(\(path))")
            close(descriptor)
            throw failure
        }
    }

    deinit { close(descriptor) }

    /// Listens (for a stream socket).
    func listen() throws {
        guard Glibc.listen(descriptor, 4) == 0 else { throw POSIXFailure("listen") }
    }

    /// The next datagram, as text.
    func receiveDatagram() throws -> String {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        guard count >= 0 else { throw POSIXFailure("recv") }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }
}

/// A pipe (used from one task at a time); both ends are closed when released (unless closed before).
final class TestPipe: @unchecked Sendable {
    let readEnd: Int32
    private(set) var writeEnd: Int32

    init() throws {
        var descriptors: [Int32] = [0, 0]
        guard pipe(&descriptors) == 0 else { throw POSIXFailure("pipe") }
        for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        readEnd = descriptors[0]
        writeEnd = descriptors[1]
    }

    deinit {
        close(readEnd)
        closeWriteEnd()
    }

    func closeWriteEnd() {
        if writeEnd >= 0 { close(writeEnd) }
        writeEnd = -1
    }

    /// Everything until the write end is closed (by every holder).
    func readAll() throws -> String {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw POSIXFailure("read")
            }
            data += buffer[..<count]
        }
        return String(decoding: data, as: UTF8.self)
    }
}

/// A unique name for an abstract socket.
func uniqueName(_ prefix: String) -> String {
    "\(prefix)-\(getpid())-\(UUID().uuidString.prefix(8))"
}

/// Reads a descriptor to end of file on a thread of its own (never on the cooperative pool, whose threads the
/// writers need).
func readToEndOfFile(_ descriptor: Int32) async throws -> String {
    try await withCheckedThrowingContinuation { continuation in
        Thread {
            var data: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count == 0 { break }
                if count < 0 {
                    if errno == EINTR { continue }
                    continuation.resume(throwing: POSIXFailure("read"))
                    return
                }
                data += buffer[..<count]
            }
            continuation.resume(returning: String(decoding: data, as: UTF8.self))
        }.start()
    }
}
