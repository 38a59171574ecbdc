import ArgumentParser
import PeerScanClient
import PeerScanModel

/// `peerscanctl notify`: the alert rules, and a test alert through the sender.
struct NotifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notify",
        abstract: "Set which events alert for which devices, and send a test alert.",
        discussion: """
            peerscand decides the alerts and keeps them in its registry until peerscan-alerts, the sender, delivered \
            them to its destinations (ntfy, webhooks, Gotify, Apprise: see docs/alerts.md). Out of the box (no \
            rule): a new device alerts for every device, offline and online for important devices (peerscanctl set \
            --important), and the scanner's own faults always. A rule names the events that alert for one device, \
            or for every device without a rule of its own (default). Events: \(NotifyCommand.eventList). Every \
            subcommand needs root or membership of peerscand's control group (peerscan by default); others get \
            exit status 77.
            """,
        subcommands: [NotifyRulesCommand.self, NotifySetCommand.self, NotifyClearCommand.self, NotifyTestCommand.self]
    )

    /// The events a rule may name.
    static let eventList = AlertEvent.allCases.filter { $0 != .test }.map(\.rawValue).joined(separator: ", ")
}

/// `DEVICE` or `default`: the device a rule is for.
private func ruleDevice(_ text: String, on connection: PeerScanConnection) async throws -> DeviceID? {
    text == "default" ? nil : try await resolve(text, on: connection)
}

struct NotifyRulesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rules",
        abstract: "List the alert rules set.",
        discussion: """
            Calls ListAlertRules and prints one line per rule, the default first: DEVICE (an id, or default) and \
            the events that alert for it (none: nothing alerts). Devices without a rule follow the default rule, or \
            the rules out of the box when there is none.
            """
    )

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let path = connection.socketPath()
        try await reportingFailures(socketPath: path) {
            let rules = try await PeerScanConnection.withConnection(to: path) { try await $0.alertRules() }
            let lines =
                rules.isEmpty
                ? ["no rules: new-device for every device, offline and online for important devices"]
                : rules.map { rule in
                    let events = rule.events.isEmpty ? "none" : rule.events.joined(separator: ",")
                    return "\(rule.device ?? "default")  \(TerminalText.escapingControlCharacters(events))"
                }
            for line in lines { try StandardStreams().write(OutputLine(.standardOutput, line)) }
        }
    }
}

struct NotifySetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Set the events that alert for a device, or for every device (default).",
        discussion: """
            Calls SetAlertRule. DEVICE is an id, a name or a MAC address, as for "show", or default for every device \
            without a rule of its own. With no EVENT, nothing alerts for it. Events: \(NotifyCommand.eventList).
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: ArgumentHelp("The device (an id, a name or a MAC address), or default.", valueName: "device"))
    var device: String

    @Argument(help: ArgumentHelp("The events that alert for it.", valueName: "event"))
    var events: [String] = []

    func run() async throws {
        let path = connection.socketPath()
        try await reportingFailures(socketPath: path) {
            try await PeerScanConnection.withConnection(to: path) { connection in
                let id = try await ruleDevice(device, on: connection)
                try await connection.setAlertRule(device: id, events: events)
            }
        }
    }
}

struct NotifyClearCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clear",
        abstract: "Remove a device's alert rule, or the default rule.",
        discussion: """
            Calls SetAlertRule with no events list: the device follows the default rule again (or, for default, \
            every device without a rule follows the rules out of the box).
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: ArgumentHelp("The device (an id, a name or a MAC address), or default.", valueName: "device"))
    var device: String

    func run() async throws {
        let path = connection.socketPath()
        try await reportingFailures(socketPath: path) {
            try await PeerScanConnection.withConnection(to: path) { connection in
                let id = try await ruleDevice(device, on: connection)
                try await connection.setAlertRule(device: id, events: nil)
            }
        }
    }
}

struct NotifyTestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Send a test alert and print each destination's answer.",
        discussion: """
            Calls SendTestAlert: peerscand writes a test alert for DESTINATION (a name as peerscan-alerts logs it, \
            without secrets: ntfys://ntfy.example/alerts), or for every destination the sender follows, and waits \
            up to --timeout seconds for the answers. Prints one line per destination: its name, sent, rejected or \
            timeout, and the receiver's answer. Exits with status 1 when one was not sent, 69 when no sender runs.
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Option(help: "Seconds to wait for the answers.")
    var timeout = 30

    @Argument(help: ArgumentHelp("One destination (default: every one).", valueName: "destination"))
    var destination: String?

    func run() async throws {
        let path = connection.socketPath()
        try await reportingFailures(socketPath: path) {
            let results = try await PeerScanConnection.withConnection(to: path) {
                try await $0.sendTestAlert(destination: destination, timeout: timeout)
            }
            for result in results {
                let answer = result.answer.map { "  " + $0 } ?? ""
                let line = TerminalText.escapingControlCharacters("\(result.destination)  \(result.outcome)\(answer)")
                try StandardStreams().write(OutputLine(.standardOutput, line))
            }
            if results.isEmpty || results.contains(where: { $0.outcome != "sent" }) { throw ExitCode.failure }
        }
    }
}
