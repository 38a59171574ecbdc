import ArgumentParser
import PeerScanClient
import PeerScanModel

struct SetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Name a device, note something about it, mark it important or not.",
        discussion: """
            DEVICE is an id, a name or a MAC address, as for "show". Calls SetDeviceLabel: the options given \
            change, the others stay. --name gives the device a name that peerscand shows instead of the one it \
            found (the item's displayName, Home Assistant's device name); --name '' clears it. --note keeps a \
            line of text with it (--note '' clears it). An important device's arrival, departure and return \
            (new device, device offline, device online) and its address conflicts are logged at warning, with \
            important=true. peerscand keeps the label in its registry: it survives restarts, merges and a device \
            starting to announce mDNS. Prints the label as it is now. Needs root or membership of peerscand's \
            control group (peerscan by default); others get exit status 77.
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Option(help: ArgumentHelp("The name to show for the device ('' clears it).", valueName: "name"))
    var name: String?

    @Option(help: ArgumentHelp("A note about the device ('' clears it).", valueName: "text"))
    var note: String?

    @Flag(inversion: .prefixedNo, help: "Whether the device is important (its presence is logged at warning).")
    var important: Bool?

    @Argument(help: ArgumentHelp("The device: an id, a name or a MAC address.", valueName: "device"))
    var device: String

    var edit: DeviceLabelEdit { DeviceLabelEdit(name: name, note: note, isImportant: important) }

    func validate() throws {
        guard !edit.isEmpty else { throw ValidationError("Give --name, --note, --important or --no-important.") }
    }

    func run() async throws {
        let path = connection.socketPath()
        let edit = edit
        try await reportingFailures(socketPath: path) {
            let (id, reply) = try await PeerScanConnection.withConnection(to: path) { connection in
                let id = try await resolve(device, on: connection)
                return (id, try await connection.setLabel(edit, of: id))
            }
            try StandardStreams().write(OutputLine(.standardOutput, KnownDeviceText.labelSummary(reply, of: id)))
        }
    }
}
