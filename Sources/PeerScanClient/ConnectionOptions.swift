import ArgumentParser
import Foundation

/// The option every client of peerscand shares, peerscanctl's subcommands and peerscan-web: where peerscand's socket
/// is (`--socket`).
public struct ConnectionOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The peerscand socket (default: $PEERSCAN_SOCKET, else /run/peerscan/io.peerscan).",
            valueName: "path"
        ),
        completion: .file()
    )
    public var socket: String?

    public init() {}

    /// The socket to use: the flag wins over `$PEERSCAN_SOCKET`, which wins over the default.
    public func socketPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        SocketLocation.resolve(flag: socket, environment: environment)
    }
}
