/// Where peerscan-web listens: a TCP address and port, or a Unix socket path (for a reverse proxy in front).
///
/// `--listen` takes `ADDRESS:PORT` (`127.0.0.1:8737`, `[::1]:8737`) or an absolute path (`/run/peerscan-web/http`).
/// Host names are refused: a name could resolve to another address than the one the operator meant to expose.
public enum ListenAddress: Hashable, Sendable, CustomStringConvertible {
    /// A TCP listener on a numeric IPv4 or IPv6 address.
    case tcp(host: String, port: Int)
    /// A Unix stream socket at a path.
    case unixSocket(path: String)

    /// Why a `--listen` value is not an address.
    public struct ParseError: Error, Hashable, Sendable, CustomStringConvertible {
        /// The value as given.
        public var value: String
        /// What is wrong with it.
        public var reason: String
        public var description: String { "--listen \(value): \(reason)" }
    }

    /// The default listener: loopback, port 8737.
    public static let `default` = ListenAddress.tcp(host: "127.0.0.1", port: 8737)

    /// Parses a `--listen` value.
    /// - Throws: ``ParseError`` naming what is wrong.
    public init(parsing value: String) throws(ParseError) {
        if value.hasPrefix("/") {
            self = .unixSocket(path: value)
            return
        }
        guard let colon = value.lastIndex(of: ":") else {
            throw ParseError(value: value, reason: "expected ADDRESS:PORT or an absolute socket path")
        }
        var host = String(value[..<colon])
        let portText = value[value.index(after: colon)...]
        guard let port = Int(portText), (1...65535).contains(port) else {
            throw ParseError(value: value, reason: "the port must be a number from 1 to 65535")
        }
        if host.hasPrefix("[") && host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
            guard IPAddressText.isIPv6(host) else {
                throw ParseError(value: value, reason: "\(host) is not an IPv6 address")
            }
        } else if !IPAddressText.isIPv4(host) {
            throw ParseError(
                value: value,
                reason: "expected a numeric address (an IPv6 one in brackets), not \"\(host)\""
            )
        }
        self = .tcp(host: host, port: port)
    }

    public var description: String {
        switch self {
        case .tcp(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        case .unixSocket(let path): path
        }
    }
}

/// Numeric IP address text: which addresses are loopback.
public enum IPAddressText {
    /// Whether `text` is a dotted-quad IPv4 address.
    public static func isIPv4(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4
            && parts.allSatisfy { $0.count <= 3 && !$0.isEmpty && $0.allSatisfy(\.isASCIIDigit) && Int($0)! <= 255 }
    }

    /// Whether `text` looks like an IPv6 address (hex digits, colons, at most one `::`, an optional IPv4 tail).
    public static func isIPv6(_ text: String) -> Bool {
        guard text.contains(":"), text.count <= 45 else { return false }
        return text.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
            && text.components(separatedBy: "::").count <= 2
    }

    /// Whether `text` is a loopback address: 127.0.0.0/8, `::1`, or an IPv4-mapped 127.0.0.0/8 address.
    public static func isLoopback(_ text: String) -> Bool {
        let lowered = text.lowercased()
        if lowered == "::1" || lowered == "0:0:0:0:0:0:0:1" { return true }
        let v4 = lowered.hasPrefix("::ffff:") ? String(lowered.dropFirst(7)) : lowered
        return isIPv4(v4) && v4.hasPrefix("127.")
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
