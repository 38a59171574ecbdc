import Foundation
import PeerScanCore
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
        await withGracefulShutdownHandler {
            for await update in subscription.updates.cancelOnGracefulShutdown() {
                write(Line(event: "changeset", sequence: update.sequence, changes: update.changes))
            }
        } onGracefulShutdown: {
        }
        write(Line(event: "snapshot", sequence: await store.sequence, final: true, snapshot: await store.snapshot))
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
