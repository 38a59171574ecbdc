import Foundation

/// The scanning switch, kept across restarts in a file `scanning` (`on` or `off`) in the state directory.
public struct ScanningStateFile: Sendable {
    /// The file's path.
    public let path: String

    /// The state file in a directory (created on the first save if missing).
    public init(directory: String) {
        self.path = (directory as NSString).appendingPathComponent("scanning")
    }

    /// The saved switch; `nil` if nothing was saved yet.
    /// - Throws: ``StateFileError`` if the file exists but cannot be read or holds something else than on/off.
    public func load() throws(StateFileError) -> Bool? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw StateFileError(path: path, reason: "cannot read: \(error.localizedDescription)")
        }
        switch text.trimmingCharacters(in: .whitespacesAndNewlines) {
        case "on": return true
        case "off": return false
        case let other: throw StateFileError(path: path, reason: "expected on or off, found \"\(other.prefix(40))\"")
        }
    }

    /// Saves the switch atomically (a temporary file renamed over the old one), so a full disk or a crash never
    /// leaves a half-written file.
    /// - Throws: ``StateFileError`` if the directory or the file cannot be written.
    public func save(_ isScanning: Bool) throws(StateFileError) {
        do {
            let directory = (path as NSString).deletingLastPathComponent
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try Data((isScanning ? "on\n" : "off\n").utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw StateFileError(path: path, reason: "cannot write: \(error.localizedDescription)")
        }
    }
}

/// The scanning state file could not be read or written.
public struct StateFileError: Error, Sendable, CustomStringConvertible {
    /// The file.
    public var path: String
    /// What went wrong.
    public var reason: String

    public var description: String { "state file \(path): \(reason)" }
}
