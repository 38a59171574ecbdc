import PeerScanModel

/// A `--bluetooth-irk-file` that cannot be used: which file, which line, and why (never the key itself).
public struct IRKFileError: Error, Sendable, CustomStringConvertible, Equatable {
    /// The file.
    public var path: String
    /// The line (1-based), or `nil` when the file could not be read at all.
    public var line: Int?
    /// What is wrong.
    public var reason: String

    /// Creates an error.
    public init(path: String, line: Int?, reason: String) {
        self.path = path
        self.line = line
        self.reason = reason
    }

    public var description: String { "\(path)\(line.map { ":\($0)" } ?? ""): \(reason)" }

    /// The keys of a key file (systemd's `LoadCredential=`): one `DEVICE-ID IRK` a line; blank lines and `#`
    /// comments are skipped; a later line for the same device wins.
    ///
    /// - Parameters:
    ///   - text: The file's text.
    ///   - path: The file, for the error.
    /// - Returns: The keys by device.
    /// - Throws: ``IRKFileError`` naming the first bad line (its reason never repeats the key).
    /// - Complexity: O(n) in the length of `text`.
    public static func parseKeyFile(
        _ text: String,
        path: String
    ) throws(IRKFileError) -> [DeviceID: IdentityResolvingKey] {
        var keys: [DeviceID: IdentityResolvingKey] = [:]
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let fields = line.split(whereSeparator: \.isWhitespace)
            guard !fields.isEmpty else { continue }
            guard fields.count == 2 else {
                throw IRKFileError(path: path, line: index + 1, reason: "expected DEVICE-ID IRK")
            }
            guard let id = DeviceID(text: String(fields[0])) else {
                throw IRKFileError(path: path, line: index + 1, reason: "not a device id")
            }
            guard let key = IdentityResolvingKey(copied: String(fields[1])) else {
                throw IRKFileError(path: path, line: index + 1, reason: "the IRK is neither 32 hex digits nor base64")
            }
            keys[id] = key
        }
        return keys
    }
}
