/// Who may make a request: the `Host` allowlist first, then the bearer token where it is needed.
///
/// The page's own files (its HTML, script and style: no data) need no token anywhere, so that a browser can load the
/// page from any listener (it cannot send a header when it navigates). Reads of the API on a loopback listener need no
/// token (the same machine); on any other listener (a non-loopback address, or a Unix socket a reverse proxy forwards
/// to) they need it, and so does every write, wherever it comes from.
public struct AccessPolicy: Sendable {
    /// What to answer.
    public enum Decision: Hashable, Sendable {
        /// Go on with the request.
        case allowed
        /// 421: the `Host` header names no allowed host.
        case misdirected
        /// 401: a token is needed and was not shown, or was wrong.
        case unauthorized
    }

    /// What a request asks for.
    public enum Access: Hashable, Sendable {
        /// The page's own files: no data.
        case page
        /// The API's reads (and anything else: a 404 on another listener is a 401 first).
        case read
        /// A write method.
        case write
    }

    /// The token.
    public let token: BearerToken
    /// The allowed `Host` names.
    public let hosts: HostAllowlist

    /// A policy.
    public init(token: BearerToken, hosts: HostAllowlist) {
        self.token = token
        self.hosts = hosts
    }

    /// Decides on one request.
    /// - Parameters:
    ///   - host: The `Host` header (HTTP/1.1's authority).
    ///   - authorization: The `Authorization` header.
    ///   - access: What the request asks for.
    ///   - listenerIsLoopback: Whether the request came through a TCP listener bound to a loopback address.
    public func decide(host: String?, authorization: String?, access: Access, listenerIsLoopback: Bool) -> Decision {
        guard hosts.allows(host: host) else { return .misdirected }
        if access == .page || (access == .read && listenerIsLoopback) { return .allowed }
        return token.isCarried(by: authorization) ? .allowed : .unauthorized
    }
}
