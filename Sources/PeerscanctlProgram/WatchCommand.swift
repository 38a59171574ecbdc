import ArgumentParser
import Foundation
import PeerScanClient
import UnixSignals

struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print the devices, then every change as it happens.",
        discussion: """
            Calls Monitor and prints the snapshot as "list" does, then one line per change: "+ NAME (HOST) MAC \
            [VENDOR] ADDRESSES SERVICES" for a device that appeared, "- ..." for one that went away, "~ NAME: ..." for \
            one that changed, with exactly what changed ("offline", "online", services added or removed, addresses, \
            MAC addresses and interfaces new or gone, TXT entries and ports old->new, a new name), "! address A \
            moved from X to Y" when another MAC address answers for an address now (an address conflict, or a new \
            owner), and lines such as "scanning switched off" or "avahi connecting" for the configuration. On a \
            terminal, + lines are green, - and ! lines red, ~ lines yellow. Every \
            changeset is applied to a local copy of the snapshot, which checks it: one that does not apply makes \
            peerscanctl resubscribe from a snapshot (and say so on standard error); if the next one does not apply \
            either, it exits with status 76.

            When the connection drops (peerscand stopped or restarted), peerscanctl says so on standard error, \
            retries with a backoff (0.25 s doubling to 5 s) and resumes where it was. If peerscand restarted or could \
            not resume, it sends a new snapshot: peerscanctl prints only the difference between the last snapshot it \
            had and the new one, so that what did not change is not shown again. peerscand must be running when \
            watch starts (exit status 69 otherwise).

            With --json, every Monitor reply is printed as received, one JSON object per line: {"epoch", \
            "sequence", "snapshot"} first and after a resync (with "resync": true when peerscand sent it as one), \
            {"epoch", "sequence", "changes"} for each changeset. Apply each changeset to the last snapshot to follow \
            the state, e.g. with jq. Output is written line by line as it happens. SIGINT or SIGTERM end watch with \
            exit status 0.
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Flag(help: "Print every Monitor reply as one line of JSON.")
    var json = false

    @Flag(help: "Start each change with its local time, in RFC 3339 form.")
    var timestamps = false

    func validate() throws {
        if json && timestamps {
            throw ValidationError("--timestamps applies to text output; --json lines are printed as received.")
        }
    }

    func run() async throws {
        let path = connection.socketPath()
        let printer = WatchPrinter(
            format: json ? .json : .text,
            usesColour: !json
                && TerminalText.usesColour(
                    isTerminal: StandardStreams.isStandardOutputTerminal,
                    environment: ProcessInfo.processInfo.environment
                ),
            showsTimestamps: timestamps
        )
        let watcher = Watcher(socketPath: path, printer: printer, output: StandardStreams())
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        try await reportingFailures(socketPath: path) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await watcher.run() }
                group.addTask {
                    for await _ in signals { return }
                }
                group.addTask {
                    await StandardStreams.waitUntilReaderCloses()
                    if !Task.isCancelled { throw OutputClosed() }
                }
                // Whichever ends first (a failure, a signal, the reader of the output going away) ends the others.
                defer { group.cancelAll() }
                try await group.next()
            }
        }
    }
}
