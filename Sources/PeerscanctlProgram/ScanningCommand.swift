import ArgumentParser
import PeerScanClient
import PeerScanModel

struct ScanningCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scanning",
        abstract: "Switch scanning on or off, or show whether it is on.",
        discussion: """
            "on" and "off" call SetScanning and print the result with the sequence at which the switch is in the \
            snapshot, e.g. "scanning on (sequence 42)". Switching needs root or membership of peerscand's control \
            group (peerscan by default); others get exit status 77. peerscand keeps the switch across restarts. While \
            scanning is off, peerscand stops browsing and its snapshot lists no devices.

            "status" prints the switch as the current snapshot holds it, in the same form.
            """
    )

    enum Action: String, CaseIterable, ExpressibleByArgument {
        case on, off, status
    }

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: ArgumentHelp("Switch scanning on or off, or print its status.", valueName: "action"))
    var action: Action

    func run() async throws {
        let path = connection.socketPath()
        try await reportingFailures(socketPath: path) {
            let line = try await PeerScanConnection.withConnection(to: path) { connection in
                switch action {
                case .on, .off:
                    let sequence = try await connection.setScanning(action == .on)
                    return ScanningStatus.line(isEnabled: action == .on, sequence: sequence)
                case .status:
                    let reply = try await connection.snapshot().reply
                    return try ScanningStatus.line(for: reply)
                }
            }
            try StandardStreams().write(OutputLine(.standardOutput, line))
        }
    }
}
