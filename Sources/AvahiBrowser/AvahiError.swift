internal import CAvahi

/// A failed Avahi call: Avahi's negative error code, its `avahi_strerror` text, and the call.
public struct AvahiError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Avahi's error code (negative, `AVAHI_ERR_…`), e.g. -23 *Daemon connection failed*.
    public var code: Int32
    /// `avahi_strerror(code)`.
    public var message: String
    /// The Avahi call that failed, e.g. `"avahi_client_new"`.
    public var operation: String

    /// Creates an error from its parts.
    public init(code: Int32, message: String, operation: String) {
        self.code = code
        self.message = message
        self.operation = operation
    }

    /// `operation: message (code)`.
    public var description: String { "\(operation): \(message) (\(code))" }

    /// The daemon connection was lost (`AVAHI_ERR_DISCONNECTED`).
    public static let disconnectedCode: Int32 = -23
    /// No daemon (or no system bus) could be reached (`AVAHI_ERR_NO_DAEMON`).
    public static let noDaemonCode: Int32 = -26
    /// A request timed out (`AVAHI_ERR_TIMEOUT`).
    public static let timeoutCode: Int32 = -15
}

extension AvahiError {
    /// The one conversion from an Avahi error code: carries `avahi_strerror`'s text.
    init(code: Int32, operation: String) {
        self.init(code: code, message: String(cString: avahi_strerror(code)), operation: operation)
    }

    /// The last error of `client` (`avahi_client_errno`), attributed to `operation`.
    init(client: OpaquePointer?, operation: String) {
        self.init(code: client.map { avahi_client_errno($0) } ?? Int32(AVAHI_ERR_INVALID_OBJECT), operation: operation)
    }
}
