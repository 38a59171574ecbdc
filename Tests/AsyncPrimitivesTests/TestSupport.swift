// What this target's tests share: a pipe to poll, and the error the tests' closures throw.

import Glibc

/// The tests' error for a failed system call.
struct ReadFailure: Error, Equatable {
    var operation: String
    var errno: Int32
}

/// A pipe: a descriptor to poll that the test makes readable.
final class Pipe: Sendable {
    let readEnd: Int32
    let writeEnd: Int32

    init() throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw ReadFailure(operation: "pipe", errno: errno) }
        (readEnd, writeEnd) = (ends[0], ends[1])
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    func write(_ byte: UInt8) {
        var byte = byte
        _ = Glibc.write(writeEnd, &byte, 1)
    }

    /// Reads one byte (the pipe must be readable).
    func read() -> UInt8 {
        var byte: UInt8 = 0
        _ = Glibc.read(readEnd, &byte, 1)
        return byte
    }
}

/// `poll(2)`'s errno as the tests' error.
func pollFailure(_ errno: Int32) -> ReadFailure { ReadFailure(operation: "poll", errno: errno) }
