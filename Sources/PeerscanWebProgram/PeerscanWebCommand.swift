import Allocator
import ArgumentParser
import DaemonSupport
import Foundation
import Logging
import PeerScanClient
import PeerScanModel
import PeerscanWeb
import ServiceLifecycle
import UnixSignals

/// peerscan-web: the HTTP server of peerscan's web page, one more client of peerscand.
struct PeerscanWebCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "peerscan-web",
        abstract: "Serve peerscan's live web page and its HTTP API, a client of peerscand.",
        discussion: """
            peerscan-web serves a page that shows what peerscand finds, live: the devices (/), the Wi-Fi networks \
            (/wifi), the Bluetooth LE devices (/bluetooth), and a device's page (/devices/ID: its identities, \
            presence timelines and the edits: label, note, important, IRK, merge, split, forget). The page's files \
            are compiled in and served under /assets/; it loads nothing from another origin. For the page, \
            peerscan-web follows peerscand's Monitor call and relays each changeset to the browser as a Server-Sent \
            Event (/api/events), serves the snapshot, a device's history and the known devices (/api/snapshot, \
            /api/devices/ID, /api/known), and passes six changes through to peerscand (POST /api/SetDeviceLabel, \
            MergeDevices, SplitDevice, ForgetDevice, SetDeviceIRK, SetScanning). docs/web.md has the HTTP contract.

            Metrics: GET /metrics serves Prometheus's text format, or OpenMetrics 1.0 when the scraper's Accept \
            header asks for application/openmetrics-text: the devices (keyed by id only), presence transitions, \
            peerscand's probe rounds, counted events and clients (its GetStatistics) and both processes' figures, \
            from a Monitor call of its own kept open for the process's life. It is a read. docs/metrics.md lists \
            every series.

            Access: every request must name an allowed host in its Host header (localhost, 127.0.0.1, [::1] and \
            each --web-host), else 421. The page's own files need no token. API reads through a TCP listener on a \
            loopback address need none either; every API request through any other listener (a non-loopback \
            address, or a Unix socket, which counts as non-loopback: a reverse proxy forwards to it) needs \
            "Authorization: Bearer TOKEN", and so does every write, else 401. Writes need "Content-Type: application/json" and a body of at most 64 KiB. Each client \
            address may have 16 connections open at once.

            The token is the content of --token-file less a trailing newline. Without --token-file it is the file \
            "token" in the state directory ($STATE_DIRECTORY under systemd, else /var/lib/peerscan-web), made at \
            first start with a new random token (mode 0640). "peerscanctl web-url" prints the page's address with \
            the token.

            Listeners: each --listen, else the sockets systemd passed (socket activation), else 127.0.0.1:8737.

            peerscan-web's changes reach peerscand as its own: it must run as root or in peerscand's control group \
            (peerscan) for writes to be allowed.
            """,
        version: PeerScanVersion.current
    )

    @Option(
        name: .customLong("listen"),
        help: ArgumentHelp(
            "Listen on ADDRESS:PORT (numeric; IPv6 in brackets) or a Unix socket path (repeatable).",
            valueName: "address:port|path"
        )
    )
    var listen: [String] = []

    @OptionGroup var connection: ConnectionOptions

    @Option(
        help: ArgumentHelp(
            "The file holding the bearer token (default: STATE/token, made if missing).",
            valueName: "path"
        ),
        completion: .file()
    )
    var tokenFile: String?

    @Option(
        name: .customLong("web-host"),
        help: ArgumentHelp("Also allow this name in the Host header (repeatable).", valueName: "name")
    )
    var webHost: [String] = []

    @Option(help: ArgumentHelp("The log level.", valueName: "level"))
    var logLevel: Logger.Level = .info

    func validate() throws {
        for value in listen {
            do { _ = try ListenAddress(parsing: value) } catch { throw ValidationError(error.description) }
        }
    }

    func run() async throws {
        Allocator.fixMappingThreshold()
        let level = logLevel
        LoggingSystem.bootstrap { _ in LogfmtLogHandler(level: level) }
        let logger = Logger(label: "peerscan-web")
        let environment = ProcessInfo.processInfo.environment
        let token: String
        do {
            token = try tokenFileLocation(environment: environment).readOrCreate()
        } catch {
            FileHandle.standardError.write(Data("peerscan-web: \(error)\n".utf8))
            throw ExitCode(78)  // EX_CONFIG
        }
        let socketPath = connection.socketPath(environment: environment)
        let follower = MetricsFollower(socketPath: socketPath)
        let responder = WebResponder(
            policy: AccessPolicy(token: BearerToken(token), hosts: HostAllowlist(extraNames: webHost)),
            socketPath: socketPath,
            metrics: MetricsEndpoint(follower: follower, socketPath: socketPath),
            logger: logger
        )
        let server = WebServer(listeners: listeners(), responder: responder, logger: logger)
        let group = ServiceGroup(
            configuration: .init(
                services: [WebService(server: server), MetricsFollowerService(follower: follower)],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        try await group.run()
    }

    /// The token file: `--token-file`, else `token` in the state directory.
    private func tokenFileLocation(environment: [String: String]) -> TokenFile {
        if let tokenFile { return TokenFile(path: tokenFile) }
        let stateDirectory =
            environment["STATE_DIRECTORY"].flatMap { $0.split(separator: ":").first.map(String.init) }
            ?? "/var/lib/peerscan-web"
        return TokenFile(stateDirectory: stateDirectory)
    }

    /// The listeners: `--listen`, else systemd's sockets, else the default address.
    private func listeners() -> [Listener] {
        if !listen.isEmpty { return listen.compactMap { try? ListenAddress(parsing: $0) }.map(Listener.address) }
        let passed = SocketActivation.listeningDescriptors()
        if !passed.isEmpty { return passed.map { Listener.inherited(descriptor: $0) } }
        return [.address(.default)]
    }
}

/// The server as a service of the group: cancelled on SIGTERM or SIGINT.
struct WebService: Service {
    let server: WebServer

    func run() async throws {
        do {
            try await cancelWhenGracefulShutdown { try await server.run() }
        } catch is CancellationError {
            // SIGTERM or SIGINT: the listeners and connections are closed; a clean exit.
        }
    }
}

/// The follower of `/metrics` as a service of the group: one Monitor call for the process's life, ended on SIGTERM
/// or SIGINT.
struct MetricsFollowerService: Service {
    let follower: MetricsFollower

    func run() async throws {
        await cancelWhenGracefulShutdown { await follower.run() }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
