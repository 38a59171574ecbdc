import AlertDelivery
import ArgumentParser
import DaemonSupport
import Foundation
import Logging
import MonitoringLog
import PeerScanClient
import PeerScanModel
import ServiceLifecycle
import UnixSignals

/// peerscan-alerts: the sender of peerscand's alerts, one more client of peerscand.
struct PeerscanAlertsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "peerscan-alerts",
        abstract: "Deliver peerscand's alerts to ntfy, webhooks, Gotify and Apprise API, a client of peerscand.",
        discussion: """
            peerscan-alerts follows peerscand's alert outbox (the FollowAlerts call of io.peerscan) and delivers \
            each alert to every destination it was written for, then acknowledges it (AckAlert). peerscand decides \
            what is an alert and keeps it until every destination acknowledged it: an alert is never lost while \
            peerscan-alerts, peerscand or a receiver is down, and is sent once (its id, the same for every retry, is \
            the receiver's idempotency key: the header X-Peerscan-Alert-ID, and the webhook payload's "id").

            Destinations are URLs in Apprise's syntax; the schemes ending in "s" use HTTPS.

            ntfy://[USER:PASSWORD@|TOKEN@]HOST[:PORT]/TOPIC[?priority=P&tags=A,B&token=TOKEN], or ntfy://TOPIC for \
            ntfy.sh: ntfy's JSON publish (title, message, priority, tags, the page's link as click).

            json://[USER:PASSWORD@]HOST[:PORT]/PATH[?+Header=VALUE&template=FILE]: a webhook, POST of the JSON \
            payload of docs/alerts.md, or of the template FILE (JSON with {{field}} placeholders, filled in \
            JSON-escaped).

            gotify://HOST[:PORT]/[PATH/]TOKEN[?priority=P]: Gotify's message API.

            apprise://[USER:PASSWORD@]HOST[:PORT]/[PATH/]KEY[?tags=T]: an Apprise API server's /notify/KEY, for \
            the services it reaches.

            Each destination is known by its name, the URL without user, password, token, key and query \
            (ntfys://ntfy.example/alerts): in peerscand's outbox, in the log and in errors. Secrets belong in \
            --notify-file or systemd's credential "notify" (LoadCredential=), not on the command line.

            Delivery: one queue per destination (a receiver that is down holds back only its own alerts), in order; \
            a transient failure (no answer, 408, 429, 5xx) is tried again after 1 s, doubling to 5 min, with jitter \
            (a Retry-After is honoured); any other 4xx (or a 3xx: redirects are not followed) is a refusal for \
            good, acknowledged as rejected. Logged: "alert sent", "alert failed", "alerts call failed" while \
            peerscand is away (followed again after 1 s, doubling to 30 s).

            Digest: with --digest DURATION (or ?digest=DURATION on one destination's URL, which overrides it; \
            ?digest=off for none), a destination's alerts are collected from the first one for DURATION, then sent \
            as one message: "peerscan: 7 alerts", one line per alert oldest first (the first 20; a webhook gets \
            them all in its payload's "alerts"), the highest priority of them, its key derived from their ids. At \
            most 100 alerts go in one digest (a window that collected more sends several). Each alert is \
            acknowledged only once its digest was taken (a refused digest rejects each): nothing is lost if the \
            receiver is down or peerscan-alerts restarts meanwhile. The scanner's faults and test alerts are never \
            held: they go at once.

            peerscan-alerts must run as root or in peerscand's control group (peerscan): FollowAlerts and AckAlert \
            are allowed to them only.
            """,
        version: PeerScanVersion.current
    )

    @Option(
        name: .customLong("notify"),
        help: ArgumentHelp("A destination's URL (repeatable); secrets go in --notify-file.", valueName: "url")
    )
    var notify: [String] = []

    @Option(
        name: .customLong("notify-file"),
        help: ArgumentHelp(
            "A file of destinations' URLs, one a line, # comments (repeatable). Default: the credential \"notify\" in $CREDENTIALS_DIRECTORY, if there.",
            valueName: "path"
        ),
        completion: .file()
    )
    var notifyFile: [String] = []

    @Option(
        name: .customLong("link-base"),
        help: ArgumentHelp(
            "The page's address, put before each alert's link (http://peerscan.lan:8737); no links without it.",
            valueName: "url"
        )
    )
    var linkBase: String?

    @Option(
        name: .customLong("digest"),
        help: ArgumentHelp(
            "Collect each destination's alerts for this long from the first, then send them as one message (90s, 15m, 1h; at most 24h). Default: off; a URL's ?digest= overrides it.",
            valueName: "duration"
        )
    )
    var digest: String?

    @OptionGroup var connection: ConnectionOptions

    @Option(help: ArgumentHelp("The log level.", valueName: "level"))
    var logLevel: Logger.Level = .info

    func validate() throws {
        if let digest, DigestInterval.duration(parsing: digest) == nil {
            throw ValidationError("--digest \(digest): expected a window such as 90s, 15m or 1h (at most 24h), or off.")
        }
    }

    func run() async throws {
        let level = logLevel
        LoggingSystem.bootstrap { _ in LogfmtLogHandler(level: level) }
        let logger = Logger(label: "peerscan-alerts")
        let environment = ProcessInfo.processInfo.environment
        let destinations: [Destination]
        do {
            destinations = try DestinationSources(
                urls: notify,
                files: notifyFile,
                credentialsDirectory: environment["CREDENTIALS_DIRECTORY"]
            ).destinations()
        } catch {
            FileHandle.standardError.write(Data("peerscan-alerts: \(error)\n".utf8))
            throw ExitCode(78)  // EX_CONFIG
        }
        let socketPath = connection.socketPath(environment: environment)
        let transport = HTTPTransport()
        let sender = AlertSender(
            destinations: destinations,
            transport: transport,
            clock: ContinuousClock(),
            linkBase: linkBase,
            digest: digest.flatMap(DigestInterval.duration(parsing:)),
            logger: logger,
            acknowledge: AlertFollower.acknowledger(socketPath: socketPath, logger: logger)
        )
        let follower = AlertFollower(socketPath: socketPath, sender: sender, logger: logger)
        let group = ServiceGroup(
            configuration: .init(
                services: [SenderService(sender: sender), follower],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        let notifier = SystemdNotifier()
        if notifier.isEnabled {
            // READY once the destinations are parsed: waiting for peerscand must not hold up the boot.
            do {
                try notifier.notify(["READY=1", "STATUS=delivering to \(destinations.count) destinations"])
            } catch {
                logger.log(.systemdNotifyFailed, ["error": "\(error)"])
            }
        }
        try await group.run()
    }
}

/// The sender as a service of the group: cancelled on SIGTERM or SIGINT (alerts not yet acknowledged stay in
/// peerscand's outbox and are offered again at the next start).
struct SenderService: Service {
    let sender: AlertSender<ContinuousClock>

    func run() async throws {
        await cancelWhenGracefulShutdown { await sender.run() }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
