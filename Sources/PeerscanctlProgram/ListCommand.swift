import ArgumentParser
import PeerScanClient

struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Print the devices peerscand knows, and its configuration.",
        discussion: """
            Calls GetSnapshot and prints the configuration (scanning on or off, this host's mDNS name, the state of \
            avahi-daemon with its reason when it failed or is unavailable, the interfaces browsed), then a table with \
            one row per device: NAME (the name most of its services share, or the first MAC address of a device \
            that speaks no mDNS), STATE (online, or offline: it has not answered for peerscand's --offline-after), \
            HOST (its mDNS host name), MAC (its MAC addresses), VENDOR (the organization of the first MAC address's \
            block in the IEEE assignments), ADDRESSES (IPv4, then IPv6) and SERVICES (the DNS-SD service types it \
            offers). Named devices come first, sorted by name. While scanning is off there are no devices.

            With --json, prints the reply's parameters (epoch, sequence, snapshot) exactly as received, as one line \
            of JSON (pipe it to jq for indentation); see the io.peerscan interface (varlinkctl introspect) for its \
            fields.
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Flag(help: "Print the GetSnapshot reply as JSON.")
    var json = false

    func run() async throws {
        let path = connection.socketPath()
        try await reportingFailures(socketPath: path) {
            let received = try await PeerScanConnection.withConnection(to: path) { try await $0.snapshot() }
            let lines = json ? [WatchPrinter.jsonLine(received.json)] : SnapshotTable.render(received.reply.snapshot)
            for line in lines { try StandardStreams().write(OutputLine(.standardOutput, line)) }
        }
    }
}
