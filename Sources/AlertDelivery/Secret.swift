/// A secret from a destination's URL (a token, a password, a Gotify app token, an Apprise key): its value is used only
/// where a request needs it, and every description of it, of a destination or of an error is `<secret>`.
public struct Secret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The value, for the request that needs it.
    public let value: String

    /// A secret.
    public init(_ value: String) { self.value = value }

    public var description: String { "<secret>" }
    public var debugDescription: String { "<secret>" }
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

/// How a destination authenticates, if it does.
public enum Credentials: Sendable, Hashable {
    /// HTTP basic authentication.
    case basic(user: String, password: Secret)
    /// `Authorization: Bearer TOKEN`.
    case bearer(Secret)
}
