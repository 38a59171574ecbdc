import Discovery
import Foundation
import Logging
import NIOConcurrencyHelpers
import PeerScanCore
import PeerScanModel
import PeerScanServer
import Synchronization
import TestSupport
import Testing
import Varlink
import VarlinkServer

@testable import PeerScanClient

/// `watch` against the real io.peerscan server (Varlink server, PeerScanInterface, SnapshotStore) in this process, on
/// a socket in /tmp: the first snapshot, a change, peerscand going away, coming back with the same epoch (resumed)
/// and restarting with a new one (resynced: only the difference is printed). Nothing is timed: each step waits for
/// the lines it expects; the time limit only bounds how long a failing test hangs.
@Suite("watch end to end, against an in-process peerscand", .timeLimit(.minutes(1)))
struct WatcherEndToEndTests {
    @Test("snapshot, changes, a lost connection, resuming, and a restart with a new epoch")
    func reconnects() async throws {
        let path = "/tmp/peerscanctl-test-\(getpid())-\(UUID().uuidString.prefix(8)).sock"
        let output = CapturedLines()
        let watcher = Watcher(
            socketPath: path,
            printer: WatchPrinter(format: .text, usesColour: false, showsTimestamps: false),
            output: output,
            backoff: Backoff(initial: .milliseconds(5), maximum: .milliseconds(20))
        )
        let (store, history) = makeStore(epoch: "e1")
        await store.apply([.discovery(.mdns(.sourceState(.running, hostName: "scanner.local")))])
        await store.apply([resolved("Alpha", host: "alpha.local", address: "10.0.0.1")])

        var server = try await FakeDaemon.start(path: path, store: store, history: history)
        let watching = Task { try await watcher.run() }

        try await output.waitFor("Alpha  online  alpha.local  -    -       10.0.0.1   _ssh._tcp")
        await store.apply([resolved("Bravo", host: "bravo.local", address: "10.0.0.2")])
        try await output.waitFor("+ Bravo (bravo.local) 10.0.0.2 _ssh._tcp")

        // peerscand goes away; a change happens meanwhile; it comes back with the same epoch: resumed.
        await server.stop()
        try await output.waitFor { $0.text.hasPrefix("peerscanctl: lost the connection to peerscand") }
        await store.apply([removed("Alpha")])
        server = try await FakeDaemon.start(path: path, store: store, history: history)
        try await output.waitFor(
            "peerscanctl: reconnected to peerscand on \(path); resuming after sequence 3",
            stream: .standardError
        )
        try await output.waitFor("- Alpha (alpha.local) 10.0.0.1 _ssh._tcp")

        // peerscand restarts: a new epoch and store, in which Bravo changed and Charlie is new.
        await server.stop()
        let (restarted, restartedHistory) = makeStore(epoch: "e2")
        await restarted.apply([
            .discovery(.mdns(.sourceState(.running, hostName: "scanner.local"))),
            resolved("Bravo", host: "bravo.local", address: "10.0.0.22"),
            resolved("Charlie", host: "charlie.local", address: "10.0.0.3"),
        ])
        server = try await FakeDaemon.start(path: path, store: restarted, history: restartedHistory)
        try await output.waitFor(
            "peerscanctl: peerscand restarted: resynced from a new snapshot; what changed meanwhile:",
            stream: .standardError
        )
        try await output.waitFor("+ Charlie (charlie.local) 10.0.0.3 _ssh._tcp")

        watching.cancel()
        try await watching.value
        await server.stop()

        let printed = output.lines.filter { $0.stream == .standardOutput }.map(\.text)
        #expect(
            Array(printed.suffix(4)) == [
                "+ Bravo (bravo.local) 10.0.0.2 _ssh._tcp",
                "- Alpha (alpha.local) 10.0.0.1 _ssh._tcp",
                "~ Bravo: address 10.0.0.22 new, address 10.0.0.2 gone",
                "+ Charlie (charlie.local) 10.0.0.3 _ssh._tcp",
            ]
        )
    }

    @Test("peerscand not running when watch starts: status 69 at once")
    func notRunning() async throws {
        let watcher = Watcher(
            socketPath: "/tmp/peerscanctl-test-absent-\(getpid()).sock",
            printer: WatchPrinter(format: .text, usesColour: false, showsTimestamps: false),
            output: CapturedLines()
        )
        let failure = await #expect(throws: ClientFailure.self) { try await watcher.run() }
        #expect(failure?.status == .unavailable)
    }

    @Test("list and scanning against the real interface")
    func oneShotCalls() async throws {
        let path = "/tmp/peerscanctl-test-\(getpid())-\(UUID().uuidString.prefix(8)).sock"
        let (store, history) = makeStore(epoch: "e1")
        await store.apply([resolved("Alpha", host: "alpha.local", address: "10.0.0.1")])
        let server = try await FakeDaemon.start(path: path, store: store, history: history)

        let received = try await PeerScanConnection.withConnection(to: path) { try await $0.snapshot() }
        #expect(received.reply.epoch == "e1")
        #expect(
            SnapshotTable.render(received.reply.snapshot).last
                == "Alpha  online  alpha.local  -    -       10.0.0.1   _ssh._tcp"
        )
        // The JSON kept is the parameters object exactly as peerscand sent it.
        let members = try #require(try JSONSerialization.jsonObject(with: received.json) as? [String: Any])
        #expect(Set(members.keys) == ["epoch", "sequence", "snapshot"])
        #expect(String(decoding: received.json.prefix(9), as: UTF8.self) == #"{"epoch":"#)
        #expect(try ScanningStatus.line(for: received.reply) == "scanning on (sequence 1)")

        // SetScanning is allowed for root only here (controlGroup nil): tests run as root in CI, maybe not elsewhere.
        if getuid() == 0 {
            let sequence = try await PeerScanConnection.withConnection(to: path) { try await $0.setScanning(false) }
            #expect(sequence == 2)
            let reply = try await PeerScanConnection.withConnection(to: path) { try await $0.snapshot().reply }
            #expect(try ScanningStatus.line(for: reply) == "scanning off (sequence 2)")
        } else {
            let refused = await #expect(throws: VarlinkError.self) {
                try await PeerScanConnection.withConnection(to: path) { try await $0.setScanning(false) }
            }
            #expect(ClientFailure(try #require(refused), socketPath: path).status == .permissionDenied)
        }
        await server.stop()
    }
}

// MARK: - Helpers

/// A device with one SSH service, resolved on lan0.
func resolved(_ name: String, host: String, address: String) -> StoreInput {
    .discovery(
        .mdns(
            .serviceResolved(
                ServiceInstance(
                    key: ServiceInstanceKey(
                        interface: "lan0",
                        ipProtocol: .ipv4,
                        name: name,
                        type: "_ssh._tcp",
                        domain: "local"
                    ),
                    hostName: host,
                    addresses: [address],
                    port: 22,
                    txt: []
                )
            )
        )
    )
}

/// The SSH service of device `name` removed.
func removed(_ name: String) -> StoreInput {
    .discovery(
        .mdns(
            .serviceRemoved(
                ServiceInstanceKey(interface: "lan0", ipProtocol: .ipv4, name: name, type: "_ssh._tcp", domain: "local")
            )
        )
    )
}

/// A store of the daemon's run `epoch`, recording its updates in the history clients resume from.
func makeStore(epoch: String) -> (SnapshotStore, ChangeHistory) {
    let history = ChangeHistory(epoch: epoch)
    let store = SnapshotStore(
        isScanning: true,
        interfaces: ["lan0"],
        recorders: StoreRecorders(updates: { history.record($0) })
    )
    return (store, history)
}

/// io.peerscan served from a store on a socket, as peerscand serves it.
struct FakeDaemon {
    let task: Task<Void, any Error>

    static func start(path: String, store: SnapshotStore, history: ChangeHistory) async throws -> FakeDaemon {
        let (ready, readyContinuation) = AsyncStream<Void>.makeStream()
        let server = VarlinkServer(
            listener: .path(path, permissions: 0o600),
            interfaces: [
                PeerScanInterface(store: store, epoch: history.epoch, history: history, controlGroup: nil) { enabled in
                    await store.apply([.setScanning(enabled, reply: nil)])
                    return await store.current().sequence
                }
            ],
            info: .init(vendor: "peerscan", product: "peerscand", version: "test", url: "test"),
            logger: Logger.silent,
            ready: { readyContinuation.yield() }
        )
        let task = Task { try await server.run() }
        for await _ in ready { break }
        return FakeDaemon(task: task)
    }

    /// Stops serving: every connection is closed and the socket removed.
    func stop() async {
        task.cancel()
        _ = try? await task.value
    }
}

/// Lines written by the code under test, and a way to wait for one.
final class CapturedLines: LineWriter {
    private let state = NIOLockedValueBox<
        (lines: [OutputLine], waiters: [(id: Int, continuation: AsyncStream<Void>.Continuation)])
    >(
        ([], [])
    )
    private let nextID = Atomic<Int>(0)

    var lines: [OutputLine] { state.withLockedValue { $0.lines } }

    func write(_ line: OutputLine) throws {
        let waiters = state.withLockedValue { state in
            state.lines.append(line)
            return state.waiters.map(\.continuation)
        }
        for waiter in waiters { waiter.yield() }
    }

    /// Waits until a line equal to `text` was written to `stream`.
    func waitFor(_ text: String, stream: OutputLine.Stream = .standardOutput) async throws {
        try await waitFor { $0 == OutputLine(stream, text) }
    }

    /// Waits until a line satisfying `predicate` was written.
    func waitFor(_ predicate: @escaping @Sendable (OutputLine) -> Bool) async throws {
        let (signal, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = nextID.add(1, ordering: .relaxed).newValue
        state.withLockedValue { $0.waiters.append((id, continuation)) }
        defer { state.withLockedValue { $0.waiters.removeAll { $0.id == id } } }
        continuation.yield()
        for await _ in signal {
            if lines.contains(where: predicate) { return }
            try Task.checkCancellation()
        }
    }
}
