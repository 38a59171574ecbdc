import ArgumentParser
import PeerScanClient
import PeerScanModel

struct KnownCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "known",
        abstract: "List the devices the registry knows: every device peerscand remembers, also those not present now.",
        discussion: """
            Calls ListKnownDevices and prints one row per device, most recently seen first: NAME (its name, or its \
            first MAC address), STATE (online; offline: listed but not answering; absent: remembered only), FIRST \
            SEEN and LAST SEEN (UTC; "now" while online), MAC, VENDOR and ID (the id it keeps across sources and \
            restarts). peerscand forgets a device not seen for its --forget-after (7 days by default).

            With --json, prints the reply's parameters as one line of JSON.
            """
    )

    @OptionGroup var options: KnownOptions

    func run() async throws { try await options.printKnownDevices() }
}

/// The options of `known`, and of `history`, its old name.
struct KnownOptions: ParsableArguments {
    @OptionGroup var connection: ConnectionOptions

    @Flag(help: "Print the ListKnownDevices reply as JSON.")
    var json = false

    /// Calls ListKnownDevices and prints the table, or the reply as JSON.
    func printKnownDevices() async throws {
        let path = connection.socketPath()
        try await reportingFailures(socketPath: path) {
            let received = try await PeerScanConnection.withConnection(to: path) { try await $0.knownDevices() }
            let lines =
                json ? [WatchPrinter.jsonLine(received.json)] : KnownDeviceText.table(received.reply.devices)
            for line in lines { try StandardStreams().write(OutputLine(.standardOutput, line)) }
        }
    }
}

/// `peerscanctl history`: the old name of `known`, kept so that scripts written for it keep working. It is hidden
/// from the help and the shell completions (an argument-parser alias would be listed there, next to `known`).
struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "The old name of \"known\", kept for scripts.",
        shouldDisplay: false
    )

    @OptionGroup var options: KnownOptions

    func run() async throws { try await options.printKnownDevices() }
}

struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print one device's history: first and last seen, every host name, MAC address and address.",
        discussion: """
            DEVICE is an id, a name (the device's name or mDNS host name, case-insensitive; "nas" finds \
            nas.local) or a MAC address. A name that several devices share is an error that lists them: use the \
            id. Calls GetDevice and prints the device's id, name, state, first and last seen (UTC), vendor, then \
            every host name, MAC address and address it was seen with, each with when it was first and last seen, \
            and the services it offers if it is present.

            With --json, prints the GetDevice reply's parameters as one line of JSON.
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Flag(help: "Print the GetDevice reply as JSON.")
    var json = false

    @Argument(help: ArgumentHelp("The device: an id, a name or a MAC address.", valueName: "device"))
    var device: String

    func run() async throws {
        let path = connection.socketPath()
        try await reportingFailures(socketPath: path) {
            let received = try await PeerScanConnection.withConnection(to: path) { connection in
                try await connection.device(try await resolve(device, on: connection))
            }
            let lines = json ? [WatchPrinter.jsonLine(received.json)] : KnownDeviceText.details(received.reply)
            for line in lines { try StandardStreams().write(OutputLine(.standardOutput, line)) }
        }
    }
}

struct ForgetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forget",
        abstract: "Make peerscand forget a device and its history.",
        discussion: """
            DEVICE is an id, a name or a MAC address, as for "show". Calls ForgetDevice: peerscand removes the \
            device from its registry with every host name, MAC address and address it was seen with. A device that \
            does not answer now leaves the list; one that answers stays listed, and its history starts over (it is \
            a new device). Needs root or membership of peerscand's control group (peerscan by default); others get \
            exit status 77.
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: ArgumentHelp("The device: an id, a name or a MAC address.", valueName: "device"))
    var device: String

    func run() async throws {
        let path = connection.socketPath()
        try await reportingFailures(socketPath: path) {
            let id = try await PeerScanConnection.withConnection(to: path) { connection in
                let id = try await resolve(device, on: connection)
                try await connection.forget(id)
                return id
            }
            try StandardStreams().write(OutputLine(.standardOutput, "forgot \(id)"))
        }
    }
}

/// The id of the device `query` names (see ``KnownDeviceText/match(_:in:)``); an id is taken as it is.
/// - Throws: `ClientFailure` when nothing, or more than one device, matches.
func resolve(_ query: String, on connection: PeerScanConnection) async throws -> DeviceID {
    if let id = DeviceID(text: query) { return id }
    return try KnownDeviceText.match(query, in: try await connection.knownDevices().reply.devices)
}
