// What this target's tests share: a receiver of one request on the loopback that records it and answers with the
// bytes it is given, or never answers.

import Foundation
import Glibc
import NIOConcurrencyHelpers
import TestSupport

/// A receiver of one connection on its own thread: reads one request (head and `Content-Length` body), records it,
/// then writes `answer` and closes — or, without an answer, reads on until the client hangs up.
final class FakeReceiver: Sendable {
    /// The request received.
    struct Received: Equatable, Sendable {
        /// The request line and header lines, without their CRLF.
        var head: [String]
        var body: [UInt8]
    }

    let port: Int
    private let listener: Int32
    private let answer: [UInt8]?
    private let state = NIOLockedValueBox((received: Received?.none, hungUp: false))

    init(answer: String?) throws {
        self.answer = answer.map { Array($0.utf8) }
        (listener, port) = try loopbackSocket(listening: true)
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    deinit { close(listener) }

    var url: String { "http://127.0.0.1:\(port)/hook?topic=a" }
    /// The request, once read whole.
    var received: Received? { state.withLockedValue { $0.received } }
    /// Whether the client closed the connection (after a request left unanswered).
    var hungUp: Bool { state.withLockedValue { $0.hungUp } }

    private func serve() {
        let connection = accept(listener, nil, nil)
        guard connection >= 0 else { return }
        defer { close(connection) }
        var bytes: [UInt8] = []
        let end = Array("\r\n\r\n".utf8)
        while bytes.firstRange(of: end) == nil {
            guard let more = Self.read(connection) else { return }
            bytes += more
        }
        let headEnd = bytes.firstRange(of: end)!
        let head = String(decoding: bytes[..<headEnd.lowerBound], as: UTF8.self)
            .components(separatedBy: "\r\n")
        let length =
            head.lazy.compactMap { line -> Int? in
                let parts = line.split(separator: ":", maxSplits: 1)
                guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
                return Int(parts[1].trimmingCharacters(in: .whitespaces))
            }.first ?? 0
        var body = Array(bytes[headEnd.upperBound...])
        while body.count < length {
            guard let more = Self.read(connection) else { return }
            body += more
        }
        state.withLockedValue { $0.received = Received(head: head, body: body) }
        if let answer {
            _ = answer.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
        } else {
            while Self.read(connection) != nil {}
            state.withLockedValue { $0.hungUp = true }
        }
    }

    private static func read(_ connection: Int32) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let got = buffer.withUnsafeMutableBytes { Glibc.read(connection, $0.baseAddress, $0.count) }
        return got > 0 ? Array(buffer[..<got]) : nil
    }
}

/// `openssl s_server` on the loopback with a self-signed certificate for 127.0.0.1 (made in `directory`): a TLS
/// receiver no trust store knows. Stopped by ``stop()``.
final class SelfSignedReceiver: Sendable {
    let port: Int
    private let process: Process

    init(directory: String) throws {
        let key = "\(directory)/key.pem"
        let certificate = "\(directory)/certificate.pem"
        try Self.run(
            "/usr/bin/openssl",
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            "-days",
            "1",
            "-keyout",
            key,
            "-out",
            certificate
        )
        port = try closedPort()
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = [
            "s_server", "-accept", "127.0.0.1:\(port)", "-cert", certificate, "-key", key, "-www", "-quiet",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    /// Whether it accepts connections yet.
    var isListening: Bool {
        guard let (descriptor, _) = try? loopbackSocket(listening: false) else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// Kills it (SIGKILL: the test runner's threads may block SIGTERM, which a spawned process inherits).
    func stop() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    private static func run(_ executable: String, _ arguments: String...) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw POSIXFailure("\(executable) \(arguments[0])", errno: 0) }
    }
}
