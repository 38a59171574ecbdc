import PeerScanModel

/// Where the clients (peerscanctl, peerscan-web) find peerscand's socket.
public enum SocketLocation {
    /// The environment variable that overrides the default socket path.
    public static let environmentVariable = "PEERSCAN_SOCKET"

    /// The socket to use: the `--socket` flag if given, else `$PEERSCAN_SOCKET` if set and not empty, else
    /// ``PeerScanWire/defaultSocketPath``.
    ///
    /// - Parameters:
    ///   - flag: The value of `--socket`, if it was given.
    ///   - environment: The process environment.
    /// - Returns: The socket path.
    public static func resolve(flag: String?, environment: [String: String]) -> String {
        if let flag { return flag }
        if let path = environment[environmentVariable], !path.isEmpty { return path }
        return PeerScanWire.defaultSocketPath
    }
}
