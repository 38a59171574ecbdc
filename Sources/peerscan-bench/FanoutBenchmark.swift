import Allocator
import ArgumentParser
import AsyncPrimitives
import Discovery
import Foundation
import Logging
import PeerScanCore
import PeerScanModel
import PeerScanServer
import SeededRandom
import Varlink
import VarlinkServer

/// `peerscan-bench fanout`: how fast one changeset reaches many Monitor clients over real Unix sockets.
struct FanoutBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fanout",
        abstract: "Time the delivery of changesets from the store to many Varlink Monitor clients.",
        discussion: """
            The store holds N synthetic devices and serves io.peerscan on a Unix socket in /tmp, in this process. \
            A second process (peerscan-bench fanout-clients) opens M Monitor connections that read everything, \
            and optionally S that never read. Then K random changes (a TXT value of a random device) are applied \
            one at a time; each latency runs from just before the store applies the change to the moment the \
            last of the M clients has read the reply (CLOCK_MONOTONIC in both processes). Reported: p50, p99 and \
            max latency, the RSS of this (the daemon's) process with the store filled before any client connects and its \
            peak during the run, the bytes malloc holds for the store then (the history included), the bytes the \
            resume history holds at the end, and the bytes of a changeset reply on the wire. With --stalled S, the same run is repeated with S stalled clients added, in the same process \
            run, so that the two p99 can be compared.
            """
    )

    @Option(help: "The number of devices N.") var devices = 10_000
    @Option(help: "The number of reading clients M.") var clients = 100
    @Option(help: "The number of changes K.") var changes = 1_000
    @Option(help: "Also run with this many clients that never read (0: skip).") var stalled = 0
    @Option(help: "Changesets queued per client before it is resynced (peerscand's --client-queue).") var clientQueue =
        256
    @Option(help: "The seed of the random changes.") var seed: UInt64 = 42
    @Flag(help: "Print one JSON object per run.") var json = false

    struct Result: Encodable {
        var devices: Int
        var clients: Int
        var stalled: Int
        var changes: Int
        var p50_ms: Double
        var p99_ms: Double
        var max_ms: Double
        var store_rss_mib: Double
        var peak_rss_mib: Double
        var store_heap_mib: Double
        var history_kib: Double
        var bytes_per_changeset: Int
    }

    func run() async throws {
        if !json {
            print(
                "| devices | clients | stalled | changes | p50 (ms) | p99 (ms) | max (ms) | RSS before clients (MiB) | peak RSS (MiB) | heap before clients (MiB) | history at end (KiB) | bytes/changeset |"
            )
            print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        }
        for stalledCount in stalled > 0 ? [0, stalled] : [0] {
            let result = try await measure(stalled: stalledCount)
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                print(String(decoding: try encoder.encode(result), as: UTF8.self))
            } else {
                print(
                    "| \(result.devices) | \(result.clients) | \(result.stalled) | \(result.changes) "
                        + String(
                            format: "| %.2f | %.2f | %.2f | %.1f | %.1f | %.1f | %.0f ",
                            result.p50_ms,
                            result.p99_ms,
                            result.max_ms,
                            result.store_rss_mib,
                            result.peak_rss_mib,
                            result.store_heap_mib,
                            result.history_kib
                        )
                        + "| \(result.bytes_per_changeset) |"
                )
            }
        }
    }

    private func measure(stalled: Int) async throws -> Result {
        Allocator.fixMappingThreshold()  // as peerscand does at start
        var logger = Logger(label: "peerscan-bench")
        logger.logLevel = .error
        let history = ChangeHistory(epoch: "bench")
        let store = SnapshotStore(
            isScanning: true,
            interfaces: ["bench0"],
            recorders: StoreRecorders(updates: { history.record($0) })
        )
        await store.apply(
            (0..<devices).map { StoreInput.discovery(.mdns(.serviceResolved(Self.instance(device: $0, value: 0)))) }
        )
        let path = "/tmp/peerscan-bench-\(getpid()).sock"
        let interface = PeerScanInterface(
            store: store,
            epoch: "bench",
            history: history,
            controlGroup: nil,
            clientQueueLimit: clientQueue,
            setScanning: { _ in 0 }
        )
        let server = VarlinkServer(
            listener: .path(path, permissions: 0o600),
            interfaces: [interface],
            info: .init(vendor: "peerscan", product: "peerscan-bench", version: PeerScanVersion.current, url: ""),
            logger: logger
        )
        // peerscand hands back start-up's pages once at rest, before clients come (StartupPagesRelease).
        Allocator.releaseStartupPages()
        Measurement.resetPeakResidentBytes()
        let storeResident = Measurement.residentBytes().current
        let storeHeap = Measurement.allocatedBytes()

        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            while !FileManager.default.fileExists(atPath: path) { try await Task.sleep(for: .milliseconds(10)) }

            let clientsProcess = Process()
            clientsProcess.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            clientsProcess.arguments = [
                "fanout-clients", "--socket", path, "--clients", "\(clients)", "--stalled", "\(stalled)",
            ]
            let output = Pipe()
            clientsProcess.standardOutput = output
            try clientsProcess.run()
            let acknowledgements = AcknowledgementReader(output.fileHandleForReading)
            defer { clientsProcess.terminate() }

            // Every client has the snapshot once the initial sequence is acknowledged.
            _ = try await acknowledgements.wait(for: await store.sequence)
            var random = SeededGenerator(seed: seed)
            var latencies: [Double] = []
            var bytes = 0
            for change in 1...changes {
                let device = Int.random(in: 0..<devices, using: &random)
                let start = Self.monotonicNanoseconds()
                await store.apply([.discovery(.mdns(.serviceResolved(Self.instance(device: device, value: change))))])
                let (received, size) = try await acknowledgements.wait(for: await store.sequence)
                latencies.append(Double(received - start) / 1e6)
                bytes = size
            }
            latencies.sort()
            group.cancelAll()
            return Result(
                devices: devices,
                clients: clients,
                stalled: stalled,
                changes: changes,
                p50_ms: latencies[latencies.count / 2],
                p99_ms: latencies[min(latencies.count - 1, latencies.count * 99 / 100)],
                max_ms: latencies.last ?? 0,
                store_rss_mib: Double(storeResident) / 1_048_576,
                peak_rss_mib: Double(Measurement.residentBytes().peak) / 1_048_576,
                store_heap_mib: Double(storeHeap) / 1_048_576,
                history_kib: Double(history.bytes) / 1024,
                bytes_per_changeset: bytes
            )
        }
    }

    static func instance(device: Int, value: Int) -> ServiceInstance {
        ServiceInstance(
            key: ServiceInstanceKey(
                interface: "bench0",
                ipProtocol: .ipv4,
                name: "Device \(device)",
                type: "_http._tcp",
                domain: "local"
            ),
            hostName: "device-\(device).local",
            addresses: ["10.\(device >> 16 & 255).\(device >> 8 & 255).\(device & 255)"],
            port: 80,
            txt: [TXTEntry(key: "value", value: "\(value)")]
        )
    }

    static func monotonicNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}

/// Reads the client process's acknowledgement lines on a thread of its own (blocking reads stay off the
/// concurrency pool) and hands them to the benchmark.
private final class AcknowledgementReader: Sendable {
    private let lines = DrainingQueue<(sequence: UInt64, received: Int64, bytes: Int)>()

    init(_ handle: FileHandle) {
        let lines = self.lines
        Thread.detachNewThread {
            var pending = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let fields = String(decoding: pending[..<newline], as: UTF8.self).split(separator: " ")
                    pending.removeSubrange(...newline)
                    if fields.count == 3, let sequence = UInt64(fields[0]), let time = Int64(fields[1]),
                        let size = Int(fields[2])
                    {
                        lines.push((sequence, time, size))
                    }
                }
            }
            lines.finish()
        }
    }

    /// Waits until every client has the reply of `sequence`; returns when the last one read it, and its size.
    func wait(for sequence: UInt64) async throws -> (received: Int64, bytes: Int) {
        while let batch = await lines.next() {
            if let match = batch.last(where: { $0.sequence >= sequence }) { return (match.received, match.bytes) }
        }
        throw ValidationError("the client process ended before sequence \(sequence)")
    }
}
