import Glibc
internal import POSIXText

/// Tells systemd about the daemon's state through the `sd_notify(3)` datagram protocol, without libsystemd.
///
/// Each notification is one datagram of newline-separated `KEY=VALUE` assignments (`READY=1`, `STATUS=…`,
/// `STOPPING=1`, `WATCHDOG=1`) sent to the Unix socket named by `$NOTIFY_SOCKET` (a path, or an abstract name
/// starting with `@`). Without `$NOTIFY_SOCKET` (not started by systemd with `Type=notify`) it does nothing.
public struct SystemdNotifier: Sendable {
    /// The socket address, or `nil` when not under systemd.
    public let socketPath: String?

    /// A notifier for the socket in the environment (`$NOTIFY_SOCKET`), or another one.
    public init(socketPath: String? = Environment.value("NOTIFY_SOCKET")) {
        self.socketPath = (socketPath?.isEmpty ?? true) ? nil : socketPath
    }

    /// Whether notifications go anywhere.
    public var isEnabled: Bool { socketPath != nil }

    /// Sends assignments in one datagram, e.g. `["READY=1", "STATUS=3 devices"]`.
    /// - Throws: ``SystemdNotifierError`` if the datagram cannot be sent.
    public func notify(_ assignments: [String]) throws(SystemdNotifierError) {
        guard let socketPath else { return }
        let message = assignments.map { $0.replacingNewlines() }.joined(separator: "\n")
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw SystemdNotifierError(errno: errno, socketPath: socketPath) }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var path = Array(socketPath.utf8)
        if path.first == UInt8(ascii: "@") { path[0] = 0 }  // abstract namespace
        guard path.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw SystemdNotifierError(errno: ENAMETOOLONG, socketPath: socketPath)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count)
        let sent = message.utf8CString.withUnsafeBufferPointer { bytes in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor, bytes.baseAddress, bytes.count - 1, Int32(MSG_NOSIGNAL), $0, length)
                }
            }
        }
        guard sent >= 0 else { throw SystemdNotifierError(errno: errno, socketPath: socketPath) }
    }
}

/// A notification could not be sent.
public struct SystemdNotifierError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The `errno` of the failed call.
    public var errno: Int32
    /// The notification socket.
    public var socketPath: String

    public var description: String { "cannot notify systemd at \(socketPath): \(POSIXText.errorDescription(errno))" }
}

extension String {
    /// Newlines would split an assignment into two; STATUS texts become one line.
    fileprivate func replacingNewlines() -> String {
        String(map { $0.isNewline ? " " : $0 })
    }
}

/// Reads the process environment.
public enum Environment {
    /// The value of an environment variable, or `nil`.
    public static func value(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
