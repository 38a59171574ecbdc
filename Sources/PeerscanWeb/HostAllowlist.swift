/// The names a request's `Host` header may carry: the loopback names, and those `--web-host` adds. A page loaded
/// under any other name (DNS rebinding: an attacker's name resolving to 127.0.0.1) gets 421 Misdirected Request.
public struct HostAllowlist: Sendable {
    /// The names allowed without `--web-host`.
    public static let loopbackNames: Set<String> = ["localhost", "127.0.0.1", "[::1]"]

    private let names: Set<String>

    /// The loopback names and `extraNames` (compared without case; a port in them is ignored).
    public init(extraNames: [String] = []) {
        names = Self.loopbackNames.union(extraNames.map { Self.name(ofHost: $0) })
    }

    /// Whether a `Host` header value (`name`, `name:port`, `[v6]:port`) names an allowed host. A missing header is
    /// refused.
    public func allows(host: String?) -> Bool {
        guard let host, !host.isEmpty else { return false }
        return names.contains(Self.name(ofHost: host))
    }

    /// The host's name without its port, lower-cased; an IPv6 address keeps its brackets.
    static func name(ofHost host: String) -> String {
        let lowered = host.lowercased()
        if lowered.hasPrefix("[") {
            guard let end = lowered.firstIndex(of: "]") else { return lowered }
            return String(lowered[...end])
        }
        guard let colon = lowered.firstIndex(of: ":") else { return lowered }
        return String(lowered[..<colon])
    }
}
