import ArgumentParser
import PeerScanClient
import PeerScanModel

struct SetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Name a device, note something about it, mark it important or not, bind its Bluetooth IRK.",
        discussion: """
            DEVICE is an id, a name or a MAC address, as for "show". Calls SetDeviceLabel: the options given \
            change, the others stay. --name gives the device a name that peerscand shows instead of the one it \
            found (the item's displayName, Home Assistant's device name); --name '' clears it. --note keeps a \
            line of text with it (--note '' clears it). An important device's arrival, departure and return \
            (new device, device offline, device online) and its address conflicts are logged at warning, with \
            important=true. peerscand keeps the label in its registry: it survives restarts, merges and a device \
            starting to announce mDNS. Prints the label as it is now. --irk binds a Bluetooth Identity Resolving \
            Key with SetDeviceIRK, in the forms Home Assistant's private_ble_device takes: 32 hex digits, most \
            significant octet first, or the iOS keychain's base64 (ending in '='), either with an 'irk:' prefix \
            (BlueZ's storage and btmgmt write keys least significant octet first: reverse their octets); --irk \
            none removes it. A key on the command line can be read by every user of the host (in /proc/PID/cmdline) \
            and stays in the shell's history: --irk - reads it from the first line of standard input instead, and \
            --irk-file PATH from a file (or a pipe: --irk-file <(pass show phone-irk)), in the same forms. Every \
            resolvable private address it resolves is that device, across rotations and restarts; the key is never \
            printed. Needs root or membership of peerscand's control group (peerscan by default); others get exit \
            status 77.
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Option(help: ArgumentHelp("The name to show for the device ('' clears it).", valueName: "name"))
    var name: String?

    @Option(help: ArgumentHelp("A note about the device ('' clears it).", valueName: "text"))
    var note: String?

    @Flag(inversion: .prefixedNo, help: "Whether the device is important (its presence is logged at warning).")
    var important: Bool?

    @Option(
        help: ArgumentHelp(
            "The device's Bluetooth IRK: 32 hex digits or base64 ('none' removes it; '-' reads standard input).",
            valueName: "irk"
        )
    )
    var irk: String?

    @Option(
        help: ArgumentHelp("Read the IRK from a file, in the forms --irk takes.", valueName: "path"),
        completion: .file()
    )
    var irkFile: String?

    @Argument(help: ArgumentHelp("The device: an id, a name or a MAC address.", valueName: "device"))
    var device: String

    var edit: DeviceLabelEdit { DeviceLabelEdit(name: name, note: note, isImportant: important) }

    /// Where the key comes from, `nil` when neither --irk nor --irk-file is given.
    var irkInput: IRKInput? {
        if let irkFile { return .file(irkFile) }
        guard let irk else { return nil }
        return irk == "-" ? .standardInput : .argument(irk)
    }

    /// `--irk KEY`: a key, `.some(nil)` for `none`, `nil` when not given or not on the command line.
    var key: IdentityResolvingKey?? {
        guard case .argument(let text)? = irkInput else { return nil }
        return IRKInput.parse(text)
    }

    func validate() throws {
        guard !edit.isEmpty || irkInput != nil else {
            throw ValidationError("Give --name, --note, --important, --no-important, --irk or --irk-file.")
        }
        if irk != nil, irkFile != nil { throw ValidationError("Give --irk or --irk-file, not both.") }
        if case .argument = irkInput, key == nil { throw ValidationError("--irk: expected \(IRKInput.expected).") }
    }

    func run() async throws {
        let path = connection.socketPath()
        let edit = edit
        let input = irkInput
        try await reportingFailures(socketPath: path) {
            let key: IdentityResolvingKey?? = try input.map { try $0.key() }  // read before connecting
            let (id, reply) = try await PeerScanConnection.withConnection(to: path) { connection in
                let id = try await resolve(device, on: connection)
                if let key { try await connection.setIRK(key, of: id) }
                return (id, edit.isEmpty ? nil : try await connection.setLabel(edit, of: id))
            }
            let streams = StandardStreams()
            if let reply { try streams.write(OutputLine(.standardOutput, KnownDeviceText.labelSummary(reply, of: id))) }
            if let key {
                try streams.write(OutputLine(.standardOutput, "\(id): irk \(key == nil ? "removed" : "set")"))
            }
        }
    }
}
