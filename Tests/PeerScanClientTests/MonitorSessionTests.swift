import Diffable
import Foundation
import PeerScanCore
import PeerScanModel
import PeerScanServer
import Testing

@testable import PeerScanClient

@Suite("The watch session: applying changesets, resuming, resyncing")
struct MonitorSessionTests {
    let printer = WatchPrinter(format: .text, usesColour: false, showsTimestamps: false)

    let alpha = makeDevice(
        "alpha.local",
        name: "Alpha",
        addresses: ["10.0.0.1"],
        services: [makeService("_ssh._tcp", name: "Alpha", port: 22)]
    )
    let bravo = makeDevice(
        "bravo.local",
        name: "Bravo",
        addresses: ["10.0.0.2"],
        services: [makeService("_http._tcp", name: "Bravo", port: 80)]
    )

    /// A session that received `snapshot` as the first reply of epoch `epoch` at `sequence`.
    func session(with snapshot: ScanSnapshot, epoch: String = "e1", sequence: UInt64 = 3) -> MonitorSession {
        var session = MonitorSession()
        _ = session.nextCallParameters()
        _ = session.receive(PeerScanWire.MonitorReply(epoch: epoch, sequence: sequence, snapshot: snapshot))
        return session
    }

    /// What the printer writes for `update`.
    func printed(_ update: MonitorSession.Update) -> [String] {
        printer.lines(for: update, json: Data("null".utf8)).map(\.description)
    }

    @Test("the first reply is the snapshot, printed as list prints it; the first call resumes nothing")
    func initial() {
        var session = MonitorSession()
        let parameters = session.nextCallParameters()
        #expect(parameters.epoch == nil && parameters.since == nil)
        let snapshot = makeSnapshot(devices: [alpha])
        let update = session.receive(PeerScanWire.MonitorReply(epoch: "e1", sequence: 7, snapshot: snapshot))
        guard case .initial(let received) = update else {
            Issue.record("\(update)")
            return
        }
        #expect(received == snapshot)
        #expect(printed(update) == SnapshotTable.render(snapshot))
        #expect(session.snapshot == snapshot && session.epoch == "e1" && session.sequence == 7)
    }

    @Test("each changeset is applied to the local snapshot and printed")
    func changes() {
        let old = makeSnapshot(devices: [alpha])
        let new = makeSnapshot(devices: [alpha, bravo])
        var session = session(with: old)
        let update = session.receive(
            PeerScanWire.MonitorReply(epoch: "e1", sequence: 4, changes: new.difference(from: old))
        )
        #expect(printed(update) == ["+ Bravo (bravo.local) 10.0.0.2 _http._tcp"])
        #expect(session.snapshot == new && session.sequence == 4)
    }

    @Test("after a reconnection the next call resumes after the local sequence")
    func resumeParameters() {
        var session = session(with: makeSnapshot(), sequence: 9)
        let parameters = session.nextCallParameters()
        #expect(parameters.epoch == "e1" && parameters.since == 9)
    }

    @Test("peerscand restarted (new epoch): only the difference between the old and new snapshot is printed")
    func daemonRestarted() {
        var session = session(with: makeSnapshot(devices: [alpha, bravo]))
        _ = session.nextCallParameters()
        var movedAlpha = alpha
        movedAlpha.addresses = ["10.0.0.9"]
        let fresh = makeSnapshot(devices: [movedAlpha, makeTV()])
        let update = session.receive(PeerScanWire.MonitorReply(epoch: "e2", sequence: 0, snapshot: fresh, resync: true))
        guard case .resynced(.daemonRestarted, _, _) = update else {
            Issue.record("\(update)")
            return
        }
        #expect(
            printed(update) == [
                "stderr: peerscanctl: peerscand restarted: resynced from a new snapshot; what changed meanwhile:",
                "- Bravo (bravo.local) 10.0.0.2 _http._tcp",
                "~ Alpha: address 10.0.0.9 new, address 10.0.0.1 gone",
                "+ Living Room TV (tv.local) 10.0.0.7 _airplay._tcp,_raop._tcp",
            ]
        )
        #expect(session.snapshot == fresh && session.epoch == "e2" && session.sequence == 0)
        let next = session.nextCallParameters()
        #expect(next.epoch == "e2" && next.since == 0)
    }

    @Test("peerscand restarted and nothing changed: it says so, and prints no change")
    func daemonRestartedNothingChanged() {
        let snapshot = makeSnapshot(devices: [alpha])
        var session = session(with: snapshot)
        _ = session.nextCallParameters()
        let update = session.receive(
            PeerScanWire.MonitorReply(epoch: "e2", sequence: 0, snapshot: snapshot, resync: true)
        )
        #expect(
            printed(update) == [
                "stderr: peerscanctl: peerscand restarted: resynced from a new snapshot; nothing changed meanwhile"
            ]
        )
    }

    @Test("resuming was not possible (same epoch, resync): the difference is printed")
    func resumeUnavailable() {
        var session = session(with: makeSnapshot(devices: [alpha]), sequence: 3)
        _ = session.nextCallParameters()
        let update = session.receive(
            PeerScanWire.MonitorReply(
                epoch: "e1",
                sequence: 2000,
                snapshot: makeSnapshot(scanning: false),
                resync: true
            )
        )
        guard case .resynced(.resumeUnavailable(since: 3), _, _) = update else {
            Issue.record("\(update)")
            return
        }
        #expect(
            printed(update) == [
                "stderr: peerscanctl: peerscand could not resume after sequence 3: resynced from a new snapshot; what changed meanwhile:",
                "scanning switched off (1 device no longer listed)",
            ]
        )
    }

    @Test("resumed: the changesets after the local sequence follow, no snapshot")
    func resumed() {
        let old = makeSnapshot(devices: [alpha])
        var session = session(with: old, sequence: 3)
        let parameters = session.nextCallParameters()
        #expect(parameters.since == 3)
        let new = makeSnapshot(devices: [])
        let update = session.receive(
            PeerScanWire.MonitorReply(epoch: "e1", sequence: 4, changes: new.difference(from: old))
        )
        #expect(printed(update) == ["- Alpha (alpha.local) 10.0.0.1 _ssh._tcp"])
    }

    @Test("fell behind (a resync snapshot mid-stream): the difference is printed")
    func fellBehind() {
        var session = session(with: makeSnapshot(devices: [alpha]))
        let update = session.receive(
            PeerScanWire.MonitorReply(
                epoch: "e1",
                sequence: 900,
                snapshot: makeSnapshot(devices: [alpha, bravo]),
                resync: true
            )
        )
        guard case .resynced(.fellBehind, _, _) = update else {
            Issue.record("\(update)")
            return
        }
        #expect(printed(update).last == "+ Bravo (bravo.local) 10.0.0.2 _http._tcp")
    }

    @Test("a changeset that does not apply: the snapshot is kept, the session resubscribes, the diff is printed")
    func resubscribeAfterMismatch() throws {
        let old = makeSnapshot(devices: [alpha])
        var session = session(with: old, sequence: 3)
        // A changeset computed from another base: it deletes bravo, which the local snapshot does not hold.
        let otherBase = makeSnapshot(devices: [bravo])
        let wrong = makeSnapshot().difference(from: otherBase)
        let update = session.receive(PeerScanWire.MonitorReply(epoch: "e1", sequence: 4, changes: wrong))
        guard case .outOfSync(let reason) = update else {
            Issue.record("\(update)")
            return
        }
        #expect(reason.hasPrefix("changeset 4 does not apply to the snapshot at 3: identifier mismatch"))
        #expect(
            printed(update) == [
                "stderr: peerscanctl: out of sync with peerscand (\(reason)); resubscribing from a snapshot"
            ]
        )
        #expect(session.snapshot == old && session.sequence == 3)

        session.resubscribe()
        let parameters = session.nextCallParameters()
        #expect(parameters.epoch == nil && parameters.since == nil)
        let current = makeSnapshot(devices: [bravo])
        let resynced = session.receive(PeerScanWire.MonitorReply(epoch: "e1", sequence: 5, snapshot: current))
        guard case .resynced(.resubscribed, _, _) = resynced else {
            Issue.record("\(resynced)")
            return
        }
        #expect(
            printed(resynced) == [
                "stderr: peerscanctl: resubscribed: resynced from a new snapshot; what changed meanwhile:",
                "- Alpha (alpha.local) 10.0.0.1 _ssh._tcp",
                "+ Bravo (bravo.local) 10.0.0.2 _http._tcp",
            ]
        )
    }

    @Test("sequence gaps, foreign epochs, changes before a snapshot and empty replies are out of sync")
    func protocolProblems() {
        let old = makeSnapshot(devices: [alpha])
        let changes = makeSnapshot().difference(from: old)
        var gap = session(with: old, sequence: 3)
        guard
            case .outOfSync(let reason) = gap.receive(
                PeerScanWire.MonitorReply(epoch: "e1", sequence: 5, changes: changes)
            )
        else {
            Issue.record("gap accepted")
            return
        }
        #expect(reason == "changeset 5 follows sequence 3")
        var foreign = session(with: old, sequence: 3)
        guard case .outOfSync = foreign.receive(PeerScanWire.MonitorReply(epoch: "e9", sequence: 4, changes: changes))
        else {
            Issue.record("foreign epoch accepted")
            return
        }
        var fresh = MonitorSession()
        guard case .outOfSync = fresh.receive(PeerScanWire.MonitorReply(epoch: "e1", sequence: 1, changes: changes))
        else {
            Issue.record("changes before a snapshot accepted")
            return
        }
        var empty = session(with: old)
        guard case .outOfSync = empty.receive(PeerScanWire.MonitorReply(epoch: "e1", sequence: 4)) else {
            Issue.record("an empty reply accepted")
            return
        }
        #expect(gap.snapshot == old && foreign.snapshot == old && fresh.snapshot == nil && empty.snapshot == old)
    }

    @Test("JSON output: every reply's bytes as received, one line each; notes still on standard error")
    func json() throws {
        let printer = WatchPrinter(format: .json, usesColour: false, showsTimestamps: false)
        // Unknown fields, numbers beyond Int64, key order and escapes all come through untouched.
        let received =
            #"{"sequence":0,"epoch":"e2","resync":true,"snapshot":{"sections":[]},"future":18446744073709551615,"s":"a\nb"}"#
        let update = MonitorSession.Update.resynced(.daemonRestarted, old: makeSnapshot(), new: makeSnapshot())
        #expect(
            printer.lines(for: update, json: Data(received.utf8)) == [
                OutputLine(.standardOutput, received),
                OutputLine(.standardError, "peerscanctl: peerscand restarted: resynced from a new snapshot"),
            ]
        )
        #expect(
            printer.lines(for: .initial(makeSnapshot()), json: Data("{}".utf8)) == [OutputLine(.standardOutput, "{}")]
        )
        // Line breaks between tokens (another server's pretty-printing) become spaces: still one line, same JSON.
        #expect(WatchPrinter.jsonLine(Data("{\n  \"a\": [1,\r\n2]\n}".utf8)) == #"{   "a": [1,  2] }"#)
    }

    @Test("the backoff doubles from 0.25 s up to 5 s and starts again after a reset")
    func backoff() {
        var backoff = Backoff()
        let delays = (0..<8).map { _ in backoff.next() }
        #expect(
            delays == [
                .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(5), .seconds(5),
                .seconds(5),
            ]
        )
        backoff.reset()
        #expect(backoff.next() == .milliseconds(250))
    }
}
