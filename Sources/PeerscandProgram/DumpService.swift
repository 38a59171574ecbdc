import Foundation
import PeerScanCore
import PeerScanModel
import ServiceLifecycle

/// `--dump`: writes the snapshot, every changeset, and the final snapshot as JSON lines to standard output.
///
/// Lines: `{"event":"snapshot","sequence":N,"snapshot":{…}}` first, then `{"event":"changeset","sequence":N,
/// "changes":{…}}` for every change, and `{"event":"snapshot","final":true,…}` at shutdown.
struct DumpService: Service {
    let store: SnapshotStore

    private struct Line: Encodable {
        var event: String
        var sequence: UInt64
        var final: Bool?
        var snapshot: ScanSnapshot?
        var changes: ScanChangeset?
    }

    func run() async throws {
        let subscription = await store.subscribe()
        write(Line(event: "snapshot", sequence: subscription.sequence, snapshot: subscription.snapshot))
        // The snapshot as printed so far: the final line is always the state after the last printed changeset.
        var snapshot = subscription.snapshot
        var sequence = subscription.sequence
        // Not cancelled at graceful shutdown: the stream ends when the scanner, shut down before this service,
        // has applied everything and ends the subscriptions — so every last change is printed.
        for await update in subscription.updates {
            write(Line(event: "changeset", sequence: update.sequence, changes: update.changes))
            snapshot = (try? snapshot.applying(update.changes)) ?? snapshot
            sequence = update.sequence
        }
        write(Line(event: "snapshot", sequence: sequence, final: true, snapshot: snapshot))
        // A service may only return once asked to (or cancelled): its turn comes right after the scanner's.
        try? await gracefulShutdown()
    }

    private func write(_ line: Line) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard var data = try? encoder.encode(line) else { return }
        data.append(UInt8(ascii: "\n"))
        // Unbuffered, so that a reader sees every line as soon as it happens.
        FileHandle.standardOutput.write(data)
    }
}
