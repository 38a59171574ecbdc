import Foundation
internal import POSIXText
import PeerScanClient
import PeerScanModel

/// Where `peerscanctl set` takes a Bluetooth IRK from: the command line (`--irk KEY`), standard input (`--irk -`) or
/// a file (`--irk-file PATH`). A key on the command line can be read by every user of the host (`/proc/PID/cmdline`)
/// and stays in the shell's history; the other two keep it out of both.
enum IRKInput: Hashable, Sendable {
    /// `--irk KEY`.
    case argument(String)
    /// `--irk -`: the first line of standard input.
    case standardInput
    /// `--irk-file PATH`: the whole file (or pipe), one key (surrounding white space allowed).
    case file(String)

    /// What the forms accept, for help and errors.
    static let expected = "32 hex digits, the iOS keychain's base64, or none"

    /// The longest key file read: a key in any accepted form is under 50 bytes.
    static let maximumFileSize = 4096

    /// A key as it is given (``IdentityResolvingKey/init(copied:)``'s forms) or `none`.
    ///
    /// - Returns: The key, `.some(nil)` for `none` (remove the device's key), or `nil` if `text` is neither.
    static func parse(_ text: String) -> IdentityResolvingKey?? {
        if text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased() == "none" { return .some(nil) }
        return IdentityResolvingKey(copied: text).map { .some($0) }
    }

    /// Reads and parses the key. The key is never part of an error's message: it is a secret.
    ///
    /// - Parameter readLine: Reads a line of standard input, `nil` at its end (Swift's `readLine()`; a fake in tests).
    /// - Returns: The key, or `nil` for `none`.
    /// - Throws: A ``ClientFailure``: exit status 64 for a value that is not a key (empty, malformed, too long), 1
    ///   for a file that cannot be read.
    func key(
        readLine: () -> String? = { Swift.readLine(strippingNewline: true) }
    ) throws(ClientFailure)
        -> IdentityResolvingKey?
    {
        let (text, origin): (String, String)
        switch self {
        case .argument(let argument):
            (text, origin) = (argument, "--irk")
        case .standardInput:
            (text, origin) = (readLine() ?? "", "--irk -: standard input")
        case .file(let path):
            (text, origin) = (try Self.contents(of: path), "--irk-file \(TerminalText.escapingControlCharacters(path))")
        }
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw ClientFailure(.usage, "\(origin) is empty: expected \(Self.expected)")
        }
        guard let key = Self.parse(text) else {
            throw ClientFailure(.usage, "\(origin) is not an IRK: expected \(Self.expected)")
        }
        return key
    }

    /// The text of a key file, read whole.
    private static func contents(of path: String) throws(ClientFailure) -> String {
        let shown = TerminalText.escapingControlCharacters(path)
        func unreadable(_ reason: String) -> ClientFailure {
            ClientFailure(.failure, "--irk-file \(shown) cannot be read: \(reason)")
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw unreadable(POSIXText.errorDescription(errno)) }
        let file = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw unreadable(POSIXText.errorDescription(errno)) }
        guard status.st_mode & S_IFMT != S_IFDIR else { throw unreadable(POSIXText.errorDescription(EISDIR)) }
        let data: Data
        do {
            // At most one byte more than a key file may hold: a pipe (`--irk-file <(pass show irk)`) has no size.
            data = try file.read(upToCount: maximumFileSize + 1) ?? Data()
        } catch {
            throw unreadable("\(error)")
        }
        guard data.count <= maximumFileSize else {
            throw ClientFailure(
                .usage,
                "--irk-file \(shown) is not an IRK: over \(maximumFileSize) bytes, a key is under 50"
            )
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ClientFailure(.usage, "--irk-file \(shown) is not an IRK: not UTF-8 text")
        }
        return text
    }
}
