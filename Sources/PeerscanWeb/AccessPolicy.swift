/// Who may make a request: the `Host` allowlist first, then the bearer token where it is needed.
///
/// Reads on a loopback listener need no token (the page's own requests, from the same machine); every request on any
/// other listener (a non-loopback address, or a Unix socket a reverse proxy forwards to) needs it, and so does every
/// write, wherever it comes from.
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
    ///   - isWrite: Whether the request changes something (a write method).
    ///   - listenerIsLoopback: Whether the request came through a TCP listener bound to a loopback address.
    public func decide(host: String?, authorization: String?, isWrite: Bool, listenerIsLoopback: Bool) -> Decision {
        guard hosts.allows(host: host) else { return .misdirected }
        if !isWrite && listenerIsLoopback { return .allowed }
        return token.isCarried(by: authorization) ? .allowed : .unauthorized
    }
}
