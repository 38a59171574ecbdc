import Foundation

/// The file that holds the bearer token: its content less one trailing newline. peerscan-web makes it at first start
/// (32 random bytes as 64 hex digits, mode 0640: root and the file's group, `peerscan`, read it for
/// `peerscanctl web-url`).
public struct TokenFile: Sendable {
    /// Why the token could not be had.
    public struct Failure: Error, Hashable, Sendable, CustomStringConvertible {
        /// The file.
        public var path: String
        /// What went wrong.
        public var reason: String
        public var description: String { "token file \(path): \(reason)" }
    }

    /// The token file's name in the state directory.
    public static let defaultName = "token"

    /// The file's path.
    public let path: String

    /// The token file at `path`.
    public init(path: String) { self.path = path }

    /// The token file in `stateDirectory`.
    public init(stateDirectory: String) {
        path = (stateDirectory as NSString).appendingPathComponent(Self.defaultName)
    }

    /// The token in the file.
    /// - Throws: ``Failure`` if the file cannot be read, is not UTF-8 or holds no token.
    public func read() throws(Failure) -> String {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw Failure(path: path, reason: "cannot be read (\(Self.reason(of: error)))")
        }
        guard var text = String(data: data, encoding: .utf8) else { throw Failure(path: path, reason: "not UTF-8") }
        if text.hasSuffix("\n") { text.removeLast() }
        guard !text.isEmpty else { throw Failure(path: path, reason: "empty") }
        return text
    }

    /// The token in the file; if there is no file, a new token written to a new file (mode 0640) first.
    /// - Throws: ``Failure`` if the file can neither be read nor made.
    public func readOrCreate() throws(Failure) -> String {
        if FileManager.default.fileExists(atPath: path) { return try read() }
        let token = Self.makeToken()
        let made = FileManager.default.createFile(
            atPath: path,
            contents: Data((token + "\n").utf8),
            attributes: [.posixPermissions: 0o640]
        )
        guard made else {
            throw Failure(path: path, reason: "cannot be made (does its directory exist, and may this user write it?)")
        }
        return try read()
    }

    /// A new token: 32 bytes of the system's random generator as 64 lower-case hex digits.
    public static func makeToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in
            let byte = UInt8.random(in: .min ... .max, using: &generator)
            return String(byte, radix: 16).count == 1 ? "0" + String(byte, radix: 16) : String(byte, radix: 16)
        }.joined()
    }

    private static func reason(of error: any Error) -> String {
        if let cocoa = error as? CocoaError, let underlying = cocoa.underlying as? POSIXError {
            return String(cString: strerror(underlying.code.rawValue))
        }
        return (error as NSError).localizedDescription
    }
}
