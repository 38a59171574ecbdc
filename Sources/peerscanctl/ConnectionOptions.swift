import ArgumentParser
import Foundation
import PeerScanClient

/// The options every subcommand shares: where peerscand's socket is.
struct ConnectionOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The peerscand socket (default: $PEERSCAN_SOCKET, else /run/peerscan/io.peerscan).",
            valueName: "path"
        ),
        completion: .file()
    )
    var socket: String?

    /// The socket to use: the flag wins over `$PEERSCAN_SOCKET`, which wins over the default.
    func socketPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        SocketLocation.resolve(flag: socket, environment: environment)
    }
}

/// Runs `body`; reports a failure on standard error (`peerscanctl: ...`) and exits with its status.
func reportingFailures(socketPath: String, _ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as ExitCode {
        throw error
    } catch is OutputClosed {
        // The reader of standard output went away (`| head`): nobody is left to tell.
        throw ExitCode.success
    } catch {
        let failure = ClientFailure(error, socketPath: socketPath)
        for line in failure.errorLines { try? StandardStreams().write(OutputLine(.standardError, line)) }
        throw ExitCode(failure.status.rawValue)
    }
}
