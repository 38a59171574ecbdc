import Foundation
import Glibc
import Logging
import NIOConcurrencyHelpers
import TextEscaping

/// A swift-log handler that writes one line per message to standard error: a stable message text followed by its
/// metadata as logfmt fields (`key=value`, values quoted when needed), e.g.
/// `device added addresses=10.0.0.7 host=tv.local id=… name="Living Room TV" services=_airplay._tcp`.
///
/// Under journald (standard error is the stream `$JOURNAL_STREAM` names) each line starts with the syslog priority
/// prefix `<N>` of sd-daemon(3) and carries no timestamp (the journal has one); otherwise it starts with an RFC 3339
/// timestamp and the level. Fields are sorted by key, so lines are stable for log-based monitoring (Loki, Vector,
/// promtail parse logfmt as is).
public struct LogfmtLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level
    private let forJournal: Bool
    private let output: LineWriter

    /// Creates a handler.
    /// - Parameters:
    ///   - level: The lowest level written.
    ///   - forJournal: Write journald's priority prefix instead of a timestamp; by default, when standard error is
    ///     the journal's stream.
    ///   - descriptor: Where lines go (standard error by default).
    public init(
        level: Logger.Level,
        forJournal: Bool = LogfmtLogHandler.standardErrorIsJournal(),
        descriptor: Int32 = 2
    ) {
        self.logLevel = level
        self.forJournal = forJournal
        self.output = LineWriter(descriptor: descriptor)
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields = self.metadata
        if let extra = event.metadata { fields.merge(extra) { _, new in new } }
        output.write(
            Self.format(
                level: event.level,
                message: "\(event.message)",
                metadata: fields,
                forJournal: forJournal,
                date: Date()
            )
        )
    }

    /// One log line, without the newline.
    public static func format(
        level: Logger.Level,
        message: String,
        metadata: Logger.Metadata,
        forJournal: Bool,
        date: Date
    ) -> String {
        var line = forJournal ? "<\(priority(level))>" : "\(timestamp(date)) \(level) "
        line += message.replacingOccurrences(of: "\n", with: " ")
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            line += " \(sanitizedKey(key))=\(quoted("\(value)"))"
        }
        return line
    }

    /// The syslog priority of a level: debug 7, info 6, notice 5, warning 4, error 3, critical 2.
    public static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// A logfmt key: spaces, `=`, `"` and control characters become `_`, so that a key can neither end the line nor
    /// forge another field.
    public static func sanitizedKey(_ key: String) -> String {
        let cleaned = String(
            key.unicodeScalars.map { scalar -> Character in
                scalar == " " || scalar == "=" || scalar == "\"" || isControl(scalar) ? "_" : Character(scalar)
            }
        )
        return cleaned.isEmpty ? "_" : cleaned
    }

    /// A logfmt value: as is, or in double quotes (with `"` and `\` escaped) if it is empty or holds a space, `=`,
    /// `"` or a control character.
    public static func quoted(_ value: String) -> String {
        let needsQuotes =
            value.isEmpty
            || value.unicodeScalars.contains { $0 == " " || $0 == "=" || $0 == "\"" || $0 == "\\" || isControl($0) }
        guard needsQuotes else { return value }
        var escaped = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case let other where isControl(other): ControlCharacters.appendEscape(of: other, to: &escaped)
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped + "\""
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool { ControlCharacters.isControl(scalar) }

    /// Whether standard error is the journal stream systemd connected (`$JOURNAL_STREAM` is its `device:inode`).
    public static func standardErrorIsJournal() -> Bool {
        guard let stream = Environment.value("JOURNAL_STREAM") else { return false }
        var status = stat()
        guard fstat(2, &status) == 0 else { return false }
        return stream == "\(status.st_dev):\(status.st_ino)"
    }

    /// `2026-11-22T05:06:03.635Z`: RFC 3339, UTC, milliseconds.
    private static let timestampStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)

    private static func timestamp(_ date: Date) -> String { date.formatted(timestampStyle) }
}

/// Writes whole lines under one process-wide lock, so that lines from several threads (and from every handler, one
/// per logger) never interleave.
private final class LineWriter: Sendable {
    private let descriptor: Int32
    private static let lock = NIOLock()

    init(descriptor: Int32) { self.descriptor = descriptor }

    func write(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        Self.lock.withLock {
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return }  // a full disk or a closed stream: the line is lost, not the daemon
                offset += written
            }
        }
    }
}
