import ArgumentParser
import Glibc
internal import POSIXText

/// `peerscan-bench fanout-clients`: the client side of the fanout benchmark, run as a separate process so that the
/// daemon side's memory is measured alone.
///
/// Opens `--clients` connections that follow `Monitor` and read everything, and `--stalled` connections that call
/// `Monitor` and never read. One thread polls every socket; for each sequence number it writes a line
/// `sequence receivedNanoseconds bytes` to standard output once *every* reading client has received that
/// sequence's reply (the time is CLOCK_MONOTONIC, comparable across processes; bytes is the reply's size).
/// Replies are not decoded as JSON: the sequence number is read from the message's text, which is enough here.
struct FanoutClients: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fanout-clients",
        abstract: "The client process of `peerscan-bench fanout` (not for direct use).",
        shouldDisplay: false
    )

    @Option var socket: String
    @Option var clients: Int
    @Option var stalled: Int = 0

    func run() throws {
        let monitor = Array(#"{"method":"io.peerscan.Monitor","more":true,"parameters":{}}"#.utf8) + [0]
        var stalledSockets: [Int32] = []
        for _ in 0..<stalled { stalledSockets.append(try connectAndSend(monitor)) }
        var readers: [(fd: Int32, buffer: [UInt8])] = []
        for _ in 0..<clients { readers.append((try connectAndSend(monitor), [])) }
        defer { for fd in stalledSockets + readers.map(\.fd) { close(fd) } }

        var received: [UInt64: (count: Int, bytes: Int)] = [:]
        var pollSet = readers.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            guard poll(&pollSet, nfds_t(pollSet.count), -1) >= 0 else {
                if errno == EINTR { continue }
                throw ValidationError("poll: \(POSIXText.errorDescription(errno))")
            }
            for index in pollSet.indices where pollSet[index].revents != 0 {
                let count = read(pollSet[index].fd, &chunk, chunk.count)
                if count <= 0 { return }  // the benchmark ended the server
                // Split on NUL, scanning only the new bytes; a partial message waits in the buffer.
                var start = 0
                for position in 0..<count where chunk[position] == 0 {
                    let message = readers[index].buffer + chunk[start..<position]
                    readers[index].buffer = []
                    start = position + 1
                    guard let sequence = Self.sequence(in: message[...]) else { continue }
                    var entry = received[sequence, default: (0, 0)]
                    entry.count += 1
                    entry.bytes = message.count + 1
                    received[sequence] = entry
                    if entry.count == clients {
                        var now = timespec()
                        clock_gettime(CLOCK_MONOTONIC, &now)
                        let line = Array(
                            "\(sequence) \(Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)) \(entry.bytes)\n"
                                .utf8
                        )
                        _ = write(STDOUT_FILENO, line, line.count)  // unbuffered: the benchmark waits for it
                        received[sequence] = nil
                    }
                }
                readers[index].buffer += chunk[start..<count]
            }
        }
    }

    private func connectAndSend(_ message: [UInt8]) throws -> Int32 {
        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            bytes.copyBytes(from: socket.utf8)
            bytes[socket.utf8.count] = 0
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard fd >= 0, result == 0, write(fd, message, message.count) == message.count else {
            throw ValidationError("cannot connect to \(socket): \(POSIXText.errorDescription(errno))")
        }
        return fd
    }

    /// The number after the first `"sequence":` in a reply (no TXT key of the benchmark's devices contains it).
    static func sequence(in message: ArraySlice<UInt8>) -> UInt64? {
        let key = Array(#""sequence":"#.utf8)
        var index = message.startIndex
        while index + key.count <= message.endIndex {
            if message[index..<index + key.count].elementsEqual(key) {
                var value: UInt64 = 0
                var position = index + key.count
                while position < message.endIndex, let digit = Int(exactly: message[position]),
                    (48...57).contains(digit)
                {
                    value = value * 10 + UInt64(digit - 48)
                    position += 1
                }
                return value
            }
            index += 1
        }
        return nil
    }
}
