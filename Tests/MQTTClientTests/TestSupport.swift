// What this target's tests share: a broker that is not there (a closed port) and a fake broker on the loopback
// that speaks just enough MQTT 5 (CONNACK) to connect a client and records the packets it receives.

import Foundation
import Glibc
import NIOConcurrencyHelpers

/// The tests' error for a failed system call.
struct SocketFailure: Error {
    var operation: String
    var errno: Int32
}

/// A TCP socket on 127.0.0.1 with a port of the kernel's choice; listening or not.
func loopbackSocket(listening: Bool) throws -> (descriptor: Int32, port: Int) {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard descriptor >= 0 else { throw SocketFailure(operation: "socket", errno: errno) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
            bind(descriptor, address, length) == 0 && getsockname(descriptor, address, &length) == 0
        }
    }
    guard bound, !listening || listen(descriptor, 4) == 0 else {
        close(descriptor)
        throw SocketFailure(operation: "bind", errno: errno)
    }
    return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
}

/// A port nothing listens on (bound, then closed): a connection to it is refused at once.
func closedPort() throws -> Int {
    let (descriptor, port) = try loopbackSocket(listening: false)
    close(descriptor)
    return port
}

/// A broker of one connection on its own thread: accepts, answers CONNECT with a CONNACK (MQTT 5, accepted) and
/// records every packet's type (the high nibble of its first byte) and body until the client closes.
final class FakeBroker: Sendable {
    /// A received packet.
    struct Packet: Equatable, Sendable {
        var type: UInt8
        var body: [UInt8]
    }

    static let connect: UInt8 = 1
    static let publish: UInt8 = 3
    static let disconnect: UInt8 = 14

    let port: Int
    private let listener: Int32
    private let state = NIOLockedValueBox((packets: [Packet](), closed: false))

    init() throws {
        (listener, port) = try loopbackSocket(listening: true)
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    deinit { close(listener) }

    /// The packets received so far.
    var packets: [Packet] { state.withLockedValue { $0.packets } }
    /// Whether the client closed its connection.
    var isClosed: Bool { state.withLockedValue { $0.closed } }

    private func serve() {
        let connection = accept(listener, nil, nil)
        guard connection >= 0 else { return }
        defer {
            close(connection)
            state.withLockedValue { $0.closed = true }
        }
        while let packet = Self.readPacket(connection) {
            state.withLockedValue { $0.packets.append(packet) }
            if packet.type == Self.connect {
                let connack: [UInt8] = [0x20, 3, 0, 0, 0]  // no session, success, no properties
                _ = connack.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
            }
        }
    }

    private static func readPacket(_ connection: Int32) -> Packet? {
        guard let first = read(connection, count: 1)?.first else { return nil }
        var length = 0
        var shift = 0
        while true {
            guard let byte = read(connection, count: 1)?.first, shift <= 21 else { return nil }
            length |= Int(byte & 0x7F) << shift
            shift += 7
            if byte & 0x80 == 0 { break }
        }
        guard let body = read(connection, count: length) else { return nil }
        return Packet(type: first >> 4, body: body)
    }

    private static func read(_ connection: Int32, count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = bytes.withUnsafeMutableBytes { Glibc.read(connection, $0.baseAddress! + done, count - done) }
            guard got > 0 else { return nil }
            done += got
        }
        return bytes
    }
}
