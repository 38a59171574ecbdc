import ArgumentParser
import Foundation

/// The permissions of the Varlink socket (--socket-mode): octal digits, at most 0777, parsed once when the options
/// are, so that the rest of the daemon holds a checked `mode_t`.
struct SocketPermissions: ExpressibleByArgument, Equatable, Sendable {
    /// The permission bits, at most `0o777`.
    let mode: mode_t

    /// Readable and writable by every local user (reading is open to all; the control group guards the changes).
    static let `default` = SocketPermissions(checkedMode: 0o666)

    private init(checkedMode: mode_t) { mode = checkedMode }

    /// Parses octal permissions like `0660`; `nil` for anything else (ArgumentParser then names the option).
    init?(argument: String) {
        guard let mode = UInt32(argument, radix: 8), mode <= 0o777 else { return nil }
        self.init(checkedMode: mode_t(mode))
    }

    /// As written on the command line: four octal digits.
    var defaultValueDescription: String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
