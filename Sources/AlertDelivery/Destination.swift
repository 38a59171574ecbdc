import Foundation

/// Where alerts go: a receiver given as a URL in Apprise's syntax, parsed once at start.
///
/// | URL | receiver |
/// | --- | --- |
/// | `ntfy://[USER:PASSWORD@\|TOKEN@]HOST[:PORT]/TOPIC`, `ntfy://TOPIC` (ntfy.sh) | ntfy's publish API (JSON) |
/// | `json://[USER:PASSWORD@]HOST[:PORT]/PATH[?+Header=value&template=FILE]` | a webhook: POST of the JSON payload |
/// | `gotify://HOST[:PORT]/[PATH/]TOKEN[?priority=N]` | Gotify's `POST /message` |
/// | `apprise://[USER:PASSWORD@]HOST[:PORT]/[PATH/]KEY[?tags=T]` | an Apprise API server's `POST /notify/KEY` |
///
/// Every scheme takes `?digest=15m` (``digest``).
///
/// The schemes ending in `s` use HTTPS. A destination is known by its ``name`` — the URL without its secrets — in
/// peerscand's outbox, in the log and in every description; its secrets are ``Secret``s.
public struct Destination: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The kind of receiver.
    public enum Kind: String, Sendable, Hashable {
        case ntfy
        case webhook = "json"
        case gotify
        case apprise
    }

    /// The kind of receiver.
    public let kind: Kind
    /// Whether the request goes over HTTPS (the schemes ending in `s`).
    public let isSecure: Bool
    /// The receiver's host name or address.
    public let host: String
    /// The port, if the URL named one.
    public let port: Int?
    /// The path's segments before the secret one (ntfy: the topic; webhook: the whole path; Gotify, Apprise: the
    /// prefix before the token or key), decoded.
    public let pathSegments: [String]
    /// How the request authenticates.
    public let credentials: Credentials?
    /// Gotify's app token or Apprise API's configuration key: the last segment of the path, never in the name.
    public let pathSecret: Secret?
    /// Extra request headers (the webhook's `+Name=value`), values treated as secrets.
    public let headers: [HeaderField]
    /// A priority that overrides the alert's (ntfy, Gotify: `?priority=`).
    public let priorityOverride: String?
    /// Extra tags (ntfy: `?tags=a,b`; Apprise API: `?tags=` is its tag filter).
    public let tags: [String]
    /// The webhook's body template, if any (`?template=FILE`).
    public let template: BodyTemplate?
    /// This destination's digest window (`?digest=15m`; `.zero` for `?digest=off`), or `nil` to follow `--digest`.
    public let digest: Duration?

    /// The destination's name: `SCHEME://HOST[:PORT]/PATH` without user, password, token, query or fragment.
    public var name: String {
        let scheme = kind.rawValue + (isSecure ? "s" : "")
        let authority = port.map { "\(displayHost):\($0)" } ?? displayHost
        let path = pathSegments.map { $0.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? $0 }
        return "\(scheme)://\(authority)/\(path.joined(separator: "/"))"
    }

    public var description: String { name }
    public var debugDescription: String { "Destination(\(name))" }

    private var displayHost: String { host.contains(":") ? "[\(host)]" : host }

    /// The base of the receiver's address: `http(s)://HOST[:PORT]`.
    var origin: String {
        let authority = port.map { "\(displayHost):\($0)" } ?? displayHost
        return (isSecure ? "https://" : "http://") + authority
    }

    /// A destination from its parts (the parser's and the tests').
    init(
        kind: Kind,
        isSecure: Bool,
        host: String,
        port: Int?,
        pathSegments: [String],
        credentials: Credentials? = nil,
        pathSecret: Secret? = nil,
        headers: [HeaderField] = [],
        priorityOverride: String? = nil,
        tags: [String] = [],
        template: BodyTemplate? = nil,
        digest: Duration? = nil
    ) {
        self.kind = kind
        self.isSecure = isSecure
        self.host = host
        self.port = port
        self.pathSegments = pathSegments
        self.credentials = credentials
        self.pathSecret = pathSecret
        self.headers = headers
        self.priorityOverride = priorityOverride
        self.tags = tags
        self.template = template
        self.digest = digest
    }

    /// The digest window that applies here: the URL's `?digest=`, else `global` (`--digest`); `nil` when none (sent
    /// one by one).
    public func digestWindow(global: Duration?) -> Duration? {
        let window = digest ?? global ?? .zero
        return window > .zero ? window : nil
    }

    /// Refuses two destinations with one name: peerscand would not tell their outboxes apart.
    ///
    /// - Throws: ``DestinationError`` with ``DestinationError/Code/duplicateName``, naming the name (never a URL).
    /// - Complexity: O(n) in the number of destinations.
    public static func checkNamesDiffer(_ destinations: [Destination]) throws(DestinationError) {
        var seen = Set<String>()
        for destination in destinations where !seen.insert(destination.name).inserted {
            throw DestinationError(
                .duplicateName,
                scheme: destination.kind.rawValue + (destination.isSecure ? "s" : ""),
                part: .url,
                reason: "two URLs have the name \(destination.name) (they differ only in secrets or options)"
            )
        }
    }
}

/// A request header given in a destination's URL; its value may be a secret.
public struct HeaderField: Sendable, Hashable {
    /// The header's name.
    public let name: String
    /// Its value.
    public let value: Secret

    /// A header.
    public init(name: String, value: Secret) {
        self.name = name
        self.value = value
    }
}
