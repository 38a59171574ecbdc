import ArgumentParser
import PeerScanClient
import PeerScanModel

/// `peerscanctl wifi`: the evil-twin baseline — the Wi-Fi networks this host connected to and those a person marked
/// known.
struct WiFiCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wifi",
        abstract: "Mark Wi-Fi networks known or unknown, and list the known ones (the evil-twin baseline).",
        discussion: """
            peerscand compares every access point of a known SSID with that SSID's known networks: one that is none \
            of their access points is logged (new access point), and at warning (possible evil twin) when its \
            security is weaker than every known network's of the SSID or its vendor is none of theirs. A network is \
            known once this host connected to it, or once a person trusts it; a network only heard, however often, \
            never is (a passer-by could set it). Known networks stay in peerscand's registry whatever its \
            --forget-after.
            """,
        subcommands: [WiFiKnownCommand.self, WiFiTrustCommand.self, WiFiUntrustCommand.self]
    )
}

struct WiFiKnownCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "known",
        abstract: "List the known Wi-Fi networks.",
        discussion: """
            Calls ListKnownWiFiNetworks and prints one row per known network, by SSID: SSID, SECURITY, KNOWN \
            (connected: this host connected to it; trusted: a person marked it known) and ACCESS POINTS (the BSSIDs \
            vouched for: those connected to, and those heard when it was trusted). With --json, prints the reply's \
            parameters as one line of JSON.
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Flag(help: "Print the ListKnownWiFiNetworks reply as JSON.")
    var json = false

    func run() async throws {
        let path = connection.socketPath()
        try await reportingFailures(socketPath: path) {
            let received = try await PeerScanConnection.withConnection(to: path) { try await $0.knownWiFiNetworks() }
            let lines = json ? [WatchPrinter.jsonLine(received.json)] : WiFiText.knownTable(received.reply.networks)
            for line in lines { try StandardStreams().write(OutputLine(.standardOutput, line)) }
        }
    }
}

struct WiFiTrustCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trust",
        abstract: "Mark the Wi-Fi networks of an SSID listed now known, with their access points heard now.",
        discussion: """
            Calls TrustWiFiNetwork: every network of SSID that peerscanctl list shows now (only that of --security, \
            if given) becomes known, with the access points heard of it now; check them before (a twin heard now \
            would be trusted too: --security leaves out another security). Prints the SSID's known networks. An \
            SSID not listed now is refused. Needs root or membership of peerscand's control group (peerscan by \
            default); others get exit status 77.
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Option(
        help: ArgumentHelp(
            "Only the network of this security (\(WiFiSecurity.allCases.map(\.rawValue).joined(separator: ", "))).",
            valueName: "security"
        )
    )
    var security: WiFiSecurity?

    @Argument(help: ArgumentHelp("The network's name (SSID), exactly.", valueName: "ssid"))
    var ssid: String

    func run() async throws {
        let path = connection.socketPath()
        try await reportingFailures(socketPath: path) {
            let received = try await PeerScanConnection.withConnection(to: path) {
                try await $0.trustWiFiNetwork(ssid, security: security)
            }
            for line in WiFiText.knownTable(received.reply.networks) {
                try StandardStreams().write(OutputLine(.standardOutput, line))
            }
        }
    }
}

struct WiFiUntrustCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "untrust",
        abstract: "Make every Wi-Fi network of an SSID unknown again.",
        discussion: """
            Calls UntrustWiFiNetwork: the SSID's networks leave the baseline, those this host connected to included \
            (a connection still up makes its network known again at once), and peerscand forgets them after its \
            --forget-after like any other. Needs root or membership of peerscand's control group (peerscan by \
            default); others get exit status 77.
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: ArgumentHelp("The network's name (SSID), exactly.", valueName: "ssid"))
    var ssid: String

    func run() async throws {
        let path = connection.socketPath()
        try await reportingFailures(socketPath: path) {
            try await PeerScanConnection.withConnection(to: path) { try await $0.untrustWiFiNetwork(ssid) }
            let line = "\(TerminalText.escapingControlCharacters(ssid)): not known"
            try StandardStreams().write(OutputLine(.standardOutput, line))
        }
    }
}

extension WiFiSecurity: ExpressibleByArgument {}
