/// A failure of a D-Bus operation: the call it was (`org.bluez.Adapter1.StartDiscovery on /org/bluez/hci0`), what
/// failed, and the D-Bus error's name and message when the peer answered with one.
public struct DBusError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable { case connect, call, reply, message, disconnected }
        private let value: Value
        /// The bus could not be reached (no socket, refused).
        public static let connect = Code(value: .connect)
        /// The peer answered with an error (``DBusError/name``), or the call could not be made.
        public static let call = Code(value: .call)
        /// A reply or signal did not have the shape expected.
        public static let reply = Code(value: .reply)
        /// A message could not be built.
        public static let message = Code(value: .message)
        /// The connection to the bus ended.
        public static let disconnected = Code(value: .disconnected)
        public var description: String { "\(value)" }
    }

    /// What kind of failure.
    public var code: Code
    /// The operation: a call as `interface.member on path`, or `connect`, `process`.
    public var operation: String
    /// The D-Bus error's name, e.g. `org.bluez.Error.NotReady`, `org.freedesktop.DBus.Error.AccessDenied`.
    public var name: String?
    /// The D-Bus error's message, or sd-bus's `strerror` text.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, operation: String, name: String? = nil, message: String) {
        self.code = code
        self.operation = operation
        self.name = name
        self.message = message
    }

    public var description: String {
        "\(operation): " + (name.map { "\($0): " } ?? "") + message
    }
}
