import ArgumentParser
import PeerScanClient
import PeerScanModel

struct MergeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Make several devices one: the others' MAC addresses and host names become the first's.",
        discussion: """
            DEVICE and each OTHER are an id, a name or a MAC address, as for "show". Calls MergeDevices: every key \
            of the others (MAC addresses, host names) is DEVICE's from now on, their histories join its history, \
            and their items leave the list in favour of DEVICE's, in one change. Use it for a phone that changes \
            its private MAC address, or a host with two network interfaces. peerscand keeps it in its registry, \
            across restarts; a split between the devices is undone. At most one of them may be an mDNS host present \
            now. Needs root or membership of peerscand's control group (peerscan by default); others get exit \
            status 77.
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: ArgumentHelp("The device that stays: an id, a name or a MAC address.", valueName: "device"))
    var device: String

    @Argument(help: ArgumentHelp("The devices merged into it.", valueName: "other"))
    var others: [String]

    func validate() throws {
        guard !others.isEmpty else { throw ValidationError("Give at least one other device to merge into \(device).") }
    }

    func run() async throws {
        let path = connection.socketPath()
        try await reportingFailures(socketPath: path) {
            let (id, merged) = try await PeerScanConnection.withConnection(to: path) { connection in
                let id = try await resolve(device, on: connection)
                var merged: [DeviceID] = []
                for other in others { merged.append(try await resolve(other, on: connection)) }
                try await connection.merge(merged, into: id)
                return (id, merged)
            }
            let line = "merged \(merged.map(\.description).joined(separator: ", ")) into \(id)"
            try StandardStreams().write(OutputLine(.standardOutput, line))
        }
    }
}

struct SplitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "split",
        abstract: "Give a MAC address or host name of a device a device of its own again.",
        discussion: """
            DEVICE is an id, a name or a MAC address, as for "show"; KEY one of its MAC addresses or host names \
            (as "show" lists them; a name without a dot is NAME.local; mac:ADDRESS and host:NAME work too). Calls \
            SplitDevice: KEY leaves DEVICE for a new device, with a new id (printed), in one change. peerscand keeps \
            the split in its registry: no automatic rule puts the two together again (a "merge" does). Needs root \
            or membership of peerscand's control group (peerscan by default); others get exit status 77.
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: ArgumentHelp("The device: an id, a name or a MAC address.", valueName: "device"))
    var device: String

    @Argument(help: ArgumentHelp("The MAC address or host name that leaves it.", valueName: "key"))
    var key: String

    func run() async throws {
        let path = connection.socketPath()
        try await reportingFailures(socketPath: path) {
            let (id, newID) = try await PeerScanConnection.withConnection(to: path) { connection in
                let id = try await resolve(device, on: connection)
                return (id, try await connection.split(key, from: id))
            }
            let line = "split \(TerminalText.escapingControlCharacters(key)) off \(id): now \(newID)"
            try StandardStreams().write(OutputLine(.standardOutput, line))
        }
    }
}
