import Foundation
import Glibc
internal import POSIXText

/// A line of output and the stream it goes to.
public struct OutputLine: Hashable, Sendable, CustomStringConvertible {
    /// Standard output or standard error.
    public enum Stream: Hashable, Sendable {
        /// What the command produces: the snapshot, changes, JSON.
        case standardOutput
        /// Notes about the connection and the session, and errors.
        case standardError
    }

    /// Where the line goes.
    public var stream: Stream
    /// The line, without its terminator.
    public var text: String

    /// Creates a line.
    public init(_ stream: Stream, _ text: String) {
        self.stream = stream
        self.text = text
    }

    public var description: String { stream == .standardOutput ? text : "stderr: \(text)" }
}

/// Where output lines go.
public protocol LineWriter: Sendable {
    /// Writes a line and its terminator at once, without buffering.
    /// - Throws: ``OutputClosed`` if the reader went away; another error if writing failed.
    func write(_ line: OutputLine) throws
}

/// Standard output went away (the reader of a pipe exited): there is nobody left to tell anything.
public struct OutputClosed: Error, Hashable, Sendable {
    public init() {}
}

/// Writes lines to the process's standard output and standard error, one `write(2)` per line, so that a reader
/// (`jq`, `grep --line-buffered`, a log file) sees each line as soon as it happens.
public struct StandardStreams: LineWriter {
    /// Creates the writer.
    public init() {}

    public func write(_ line: OutputLine) throws {
        let descriptor = line.stream == .standardOutput ? STDOUT_FILENO : STDERR_FILENO
        var bytes = Array(line.text.utf8)
        bytes.append(UInt8(ascii: "\n"))
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written >= 0 {
                offset += written
            } else if errno == EPIPE {
                throw OutputClosed()
            } else if errno != EINTR && errno != EAGAIN {
                throw ClientFailure(.failure, "cannot write output: \(POSIXText.errorDescription(errno))")
            }
        }
    }

    /// Whether standard output is a terminal.
    public static var isStandardOutputTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

    /// Returns when the reader of the pipe `descriptor` writes to went away, so that `peerscanctl watch | head -3`
    /// ends after three lines instead of at the next change (as `tail -f` does). Checks twice a second; waits until
    /// cancelled if `descriptor` is not a pipe (a terminal or a file has no reader to lose).
    ///
    /// - Parameter descriptor: A file descriptor open for writing, by default standard output.
    public static func waitUntilReaderCloses(_ descriptor: CInt = STDOUT_FILENO) async {
        var status = stat()
        let isPipe = fstat(descriptor, &status) == 0 && (status.st_mode & S_IFMT) == S_IFIFO
        while !Task.isCancelled {
            if isPipe {
                var poll = pollfd(fd: descriptor, events: 0, revents: 0)
                if Glibc.poll(&poll, 1, 0) > 0 && poll.revents & Int16(POLLERR | POLLHUP) != 0 { return }
            }
            try? await Task.sleep(for: .milliseconds(500))
        }
    }
}

/// Time stamps in RFC 3339 form with the local offset: `2025-06-01T14:03:07+02:00` (`Z` for UTC).
public enum Timestamp {
    /// The RFC 3339 form of `date` in `timeZone` (by default the local one), to the second.
    public static func rfc3339(_ date: Date, timeZone: TimeZone = .current) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeSeparator: .colon, timeZoneSeparator: .colon, timeZone: timeZone))
    }
}
