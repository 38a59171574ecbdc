// The package's one executable for its four programs (docs/packaging.md, "Size"): one copy of the Swift runtime,
// Foundation and ICU's data instead of four. Which program runs is the name it was started by, as the links
// /usr/bin/peerscand, peerscanctl, peerscan-web and peerscan-alerts give it.
import ArgumentParser
import PeerScanModel
import PeerscanAlertsProgram
import PeerscanWebProgram
import PeerscanctlProgram
import PeerscandProgram

let name = CommandLine.arguments.first?.split(separator: "/").last.map(String.init) ?? ""
switch name {
case "peerscand": await runPeerscand()
case "peerscanctl": await runPeerscanctl()
case "peerscan-web": await runPeerscanWeb()
case "peerscan-alerts": await runPeerscanAlerts()
default: Peerscan.main()
}

/// Started by any other name: what this executable is, and no program run (exit status 64).
struct Peerscan: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "peerscan",
        abstract: "The package's one executable: peerscand, peerscanctl, peerscan-web and peerscan-alerts.",
        discussion: """
            It runs the program it is started as: the links /usr/bin/peerscand, /usr/bin/peerscanctl, \
            /usr/bin/peerscan-web and /usr/bin/peerscan-alerts to /usr/lib/peerscan/peerscan start each. Started by \
            any other name it runs none.
            """,
        version: PeerScanVersion.current
    )

    func run() throws {
        throw ValidationError(
            "started as \"\(name)\": run it as peerscand, peerscanctl, peerscan-web or peerscan-alerts (a link of that name)"
        )
    }
}
