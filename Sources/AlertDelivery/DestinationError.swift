/// Why a destination's URL was refused: which part of it, and why. Never the URL itself, nor any part's value but the
/// scheme and an option's name: a URL may carry a token or a password anywhere.
public struct DestinationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The part of the URL at fault.
    public enum Part: String, Sendable, Hashable {
        case url, scheme, host, port, userinfo, path, query
    }

    /// What went wrong, growable without breaking callers.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        enum Value: Sendable, Hashable {
            case notAURL, unsupportedScheme, missing, unexpected, invalid, unknownOption, duplicateName, template
        }

        let value: Value

        /// The text is no URL.
        public static let notAURL = Code(value: .notAURL)
        /// The scheme is none peerscan-alerts speaks.
        public static let unsupportedScheme = Code(value: .unsupportedScheme)
        /// A part the scheme needs is absent.
        public static let missing = Code(value: .missing)
        /// A part the scheme does not take is present.
        public static let unexpected = Code(value: .unexpected)
        /// A part's value is malformed.
        public static let invalid = Code(value: .invalid)
        /// A query option the scheme does not know.
        public static let unknownOption = Code(value: .unknownOption)
        /// Two URLs have one name.
        public static let duplicateName = Code(value: .duplicateName)
        /// The body template cannot be read or is not a template of a JSON document.
        public static let template = Code(value: .template)

        public var description: String { "\(value)" }
    }

    /// What went wrong.
    public var code: Code
    /// The scheme as given (lowercased), or `nil` when there was none.
    public var scheme: String?
    /// The part at fault.
    public var part: Part
    /// Why, in words that name no secret.
    public var reason: String

    /// An error.
    public init(_ code: Code, scheme: String?, part: Part, reason: String) {
        self.code = code
        self.scheme = scheme
        self.part = part
        self.reason = reason
    }

    public var description: String {
        let subject = scheme.map { "\($0):// URL" } ?? "URL"
        return "\(subject): \(part.rawValue): \(reason)"
    }
}
