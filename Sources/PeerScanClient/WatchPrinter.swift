import Foundation

/// Turns what `peerscanctl watch` sees into lines of output.
///
/// Text output: the first snapshot as ``SnapshotTable`` renders it, then one ``ChangeLine`` per change (coloured
/// when ``usesColour``, after an RFC 3339 time stamp when ``showsTimestamps``). After a resync, the difference between
/// the old local snapshot and the new one, so that only what really changed is shown. JSON output: every Monitor
/// reply's parameters as received, one object per line. Notes about the session go to standard error in both.
public struct WatchPrinter: Sendable {
    /// How output is written.
    public enum Format: Sendable {
        /// For people.
        case text
        /// One JSON object per line, for programs.
        case json
    }

    /// The format.
    public var format: Format
    /// Whether change lines are coloured.
    public var usesColour: Bool
    /// Whether change lines and notes start with a time stamp.
    public var showsTimestamps: Bool
    /// The clock for time stamps.
    public var now: @Sendable () -> Date
    /// The time zone of time stamps.
    public var timeZone: TimeZone

    /// Creates a printer.
    public init(
        format: Format,
        usesColour: Bool,
        showsTimestamps: Bool,
        now: @escaping @Sendable () -> Date = Date.init,
        timeZone: TimeZone = .current
    ) {
        self.format = format
        self.usesColour = usesColour
        self.showsTimestamps = showsTimestamps
        self.now = now
        self.timeZone = timeZone
    }

    /// The lines for one Monitor reply.
    ///
    /// - Parameters:
    ///   - update: What the reply did to the session.
    ///   - json: The reply's parameters as received.
    public func lines(for update: MonitorSession.Update, json: Data) -> [OutputLine] {
        var lines: [OutputLine] = []
        if format == .json { lines.append(OutputLine(.standardOutput, Self.jsonLine(json))) }
        switch update {
        case .initial(let snapshot):
            if format == .text { lines += SnapshotTable.render(snapshot).map { OutputLine(.standardOutput, $0) } }
        case .changed(let old, let changes, let new):
            if format == .text { lines += ChangeDescription.lines(for: changes, from: old, to: new).map(changeLine) }
        case .resynced(let reason, let old, let new):
            guard format == .text else {
                lines.append(note("\(Self.describe(reason)): resynced from a new snapshot"))
                break
            }
            let changes = ChangeDescription.lines(from: old, to: new)
            let outcome = changes.isEmpty ? "nothing changed meanwhile" : "what changed meanwhile:"
            lines.append(note("\(Self.describe(reason)): resynced from a new snapshot; \(outcome)"))
            lines += changes.map(changeLine)
        case .outOfSync(let reason):
            lines.append(note("out of sync with peerscand (\(reason)); resubscribing from a snapshot"))
        }
        return lines
    }

    /// A note about the session for standard error: `peerscanctl: reconnected`; control characters escaped (a
    /// reason may quote what peerscand sent).
    public func note(_ text: String) -> OutputLine {
        OutputLine(.standardError, stamped("peerscanctl: \(TerminalText.escapingControlCharacters(text))"))
    }

    func changeLine(_ line: ChangeLine) -> OutputLine {
        OutputLine(.standardOutput, stamped(TerminalText.coloured(line.description, usesColour ? line.colour : nil)))
    }

    func stamped(_ text: String) -> String {
        showsTimestamps ? "\(Timestamp.rfc3339(now(), timeZone: timeZone)) \(text)" : text
    }

    /// JSON as received, on one line: a raw line break can only be whitespace between tokens in JSON (inside a
    /// string it is escaped), so it becomes a space and the text stays the same JSON.
    ///
    /// - Complexity: O(n) in the size of `json`.
    public static func jsonLine(_ json: Data) -> String {
        guard json.contains(where: { $0 == 0x0A || $0 == 0x0D }) else { return String(decoding: json, as: UTF8.self) }
        return String(decoding: json.map { $0 == 0x0A || $0 == 0x0D ? 0x20 : $0 }, as: UTF8.self)
    }

    static func describe(_ reason: MonitorSession.ResyncReason) -> String {
        switch reason {
        case .daemonRestarted: "peerscand restarted"
        case .resumeUnavailable(let since): "peerscand could not resume after sequence \(since)"
        case .fellBehind: "fell behind (peerscand dropped the changes queued for this client)"
        case .resubscribed: "resubscribed"
        }
    }
}
