// What this target's tests share (beside TestSupport's loopback sockets and closed port): a fake broker on the
// loopback that speaks just enough MQTT 5 (CONNACK) to connect a client and records the packets it receives.

import Foundation
import Glibc
import NIOConcurrencyHelpers
import TestSupport

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
