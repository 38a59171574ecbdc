import Logging

/// One line of peerscand's monitoring contract: a fixed message text, the level it is logged at and the metadata keys
/// it may carry.
///
/// Log-based monitoring (journald priorities, `journalctl -p warning`, alert rules matching `msg="device offline"`)
/// depends on these three never drifting, so every module logs through a ``LogMessage`` from the catalogue
/// (``LogMessage/catalogue``) rather than a string literal, and a test compares the catalogue with the log table of
/// `docs/operations.md`.
public struct LogMessage: Sendable, Hashable, CustomStringConvertible {
    /// The message, e.g. `new device`.
    public let text: String
    /// The level it is logged at; journald's priority follows from it.
    public let level: Logger.Level
    /// Every metadata key it may carry, dotted (`avahi.error`, `mac.previous`).
    public let keys: [String]

    /// A message of the catalogue.
    init(_ text: String, _ level: Logger.Level, keys: [String] = []) {
        self.text = text
        self.level = level
        self.keys = keys
    }

    public var description: String { text }
}

/// One log line to write: a message of the catalogue and its metadata.
///
/// Pure code returns these as values (a decision's effects) and the edge writes them (``Logging/Logger/log(_:)``).
public struct LogEntry: Sendable, Equatable, CustomStringConvertible {
    /// The message.
    public var message: LogMessage
    /// Its metadata: keys among ``LogMessage/keys``.
    public var metadata: [String: String]

    /// An entry.
    public init(_ message: LogMessage, _ metadata: [String: String] = [:]) {
        self.message = message
        self.metadata = metadata
    }

    public var description: String {
        ([message.text] + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }).joined(separator: " ")
    }
}

extension Logger {
    /// Logs a message of the catalogue at its level.
    ///
    /// - Precondition: every key of `metadata` is one of `message.keys` (a programming error, checked in debug
    ///   builds: the contract's table must list every key a line can carry).
    public func log(
        _ message: LogMessage,
        _ metadata: Logger.Metadata = [:],
        file: String = #fileID,
        function: String = #function,
        line: UInt = #line
    ) {
        assert(
            metadata.keys.allSatisfy(message.keys.contains),
            "\(message.text): keys \(metadata.keys.sorted()) not all in \(message.keys)"
        )
        log(level: message.level, "\(message.text)", metadata: metadata, file: file, function: function, line: line)
    }

    /// Logs an entry.
    public func log(_ entry: LogEntry, file: String = #fileID, function: String = #function, line: UInt = #line) {
        log(entry.message, entry.metadata.mapValues { .string($0) }, file: file, function: function, line: line)
    }
}
