import ArgumentParser
import DeviceRegistry
import Discovery
import Foundation
import Logging
import NIOConcurrencyHelpers
import PeerScanCore
import PeerScanModel
import SeededRandom

/// Device churn through two stores in one run, one feeding the registry and one not: what the registry adds to the
/// changeset path, how many write batches it commits, and the database's size.
struct RegistryChurnBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "registry-churn",
        abstract: "What the device registry adds to the changeset path under churn.",
        discussion: """
            --devices MAC-only devices are known to two stores; then, --rate times a second for --seconds, one \
            device changes presence or address (a neighbour event), applied to both stores in turn: one without a \
            registry, one whose batches go to a registry that writes to --database every --flush-interval \
            milliseconds, on another task, as peerscand's does. Reported: the p50/p99/max duration of one apply \
            (batch -> changeset published) with and without the registry, write batches per second and the \
            database's size. --rate 0 applies as fast as it can (with --flush-interval 0, a write load to kill -9).
            """
    )

    @Option(help: "How many devices.")
    var devices = 1000

    @Option(help: "Events per second (0: as fast as possible).")
    var rate = 100

    @Option(help: "For how long, in seconds.")
    var seconds = 60.0

    @Option(help: "The registry's database (default: a new file in a temporary directory).")
    var database: String?

    @Option(help: "Milliseconds between the registry's write batches (peerscand: 1000).")
    var flushInterval = 1000

    func run() async throws {
        let path = database ?? NSTemporaryDirectory() + "peerscan-bench-\(getpid()).sqlite"
        defer { if database == nil { for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) } } }
        let logger = Logger(label: "peerscan-bench")
        let registry = DeviceRegistry(path: path, forgetAfter: .seconds(7 * 86400), logger: logger)
        let presence = DeviceTable.Presence(offlineAfter: .zero, forgetAfter: .seconds(7 * 86400))
        let recordTimes = Samples()
        let plain = SnapshotStore(isScanning: true, interfaces: ["lan0"], devices: DeviceTable(presence: presence))
        let recorded = SnapshotStore(
            isScanning: true,
            interfaces: ["lan0"],
            devices: DeviceTable(presence: presence, identities: registry.identities),
            recorders: StoreRecorders(devices: { records in
                // The registry's share of the changeset path, timed on its own.
                let began = ContinuousClock.now
                registry.record(records)
                recordTimes.append(Measurement.milliseconds(ContinuousClock.now - began))
            })
        )
        func neighbour(_ index: Int, address: Int, answering: Bool) -> Neighbour {
            Neighbour(
                address: "10.\(address / 65536 % 256).\(address / 256 % 256).\(address % 256)",
                interface: "lan0",
                macAddress: String(format: "02:00:00:%02x:%02x:%02x", index / 65536, index / 256 % 256, index % 256),
                state: answering ? .reachable : .failed,
                lastConfirmed: nil
            )
        }
        var addresses = Array(0..<devices)
        let all = (0..<devices).map { neighbour($0, address: $0, answering: true) }
        await plain.apply([.discovery(.neighbour(.neighbourTable(all)))])
        await recorded.apply([.discovery(.neighbour(.neighbourTable(all)))])
        await registry.flush()

        let startBatches = registry.batchesWritten
        recordTimes.removeAll()
        let clock = ContinuousClock()
        let start = clock.now
        var random = SeededGenerator(seed: 11)
        var withoutRegistry: [Double] = []
        var withRegistry: [Double] = []
        var answering = [Bool](repeating: true, count: devices)
        let churning = ChurnFlag()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { [flushInterval] in
                // Not cancelled: a write cut off by cancellation would count as a failed one.
                while churning.isOn {
                    if flushInterval > 0 { try await Task.sleep(for: .milliseconds(flushInterval)) }
                    await registry.flush()
                    await Task.yield()
                }
            }
            var event = 0
            while clock.now - start < .seconds(seconds) {
                if rate > 0 {
                    let due = start + .nanoseconds(Int64(1e9 / Double(rate) * Double(event)))
                    if due > clock.now { try await Task.sleep(until: due, clock: clock) }
                }
                let index = Int.random(in: 0..<devices, using: &random)
                if Bool.random(using: &random) {
                    answering[index].toggle()  // presence
                } else {
                    addresses[index] += devices  // a new address (the old one stays the device's until it fails)
                    answering[index] = true
                }
                let input = StoreInput.discovery(
                    .neighbour(
                        .neighbourUpdated(neighbour(index, address: addresses[index], answering: answering[index]))
                    )
                )
                // Alternate which store goes first, so neither always meets a warm cache.
                let first = event % 2 == 0
                for store in first ? [plain, recorded] : [recorded, plain] {
                    let began = clock.now
                    await store.apply([input])
                    let took = Measurement.milliseconds(clock.now - began)
                    if store === plain { withoutRegistry.append(took) } else { withRegistry.append(took) }
                }
                event += 1
            }
            churning.stop()
            try await group.waitForAll()
        }
        await registry.flush()
        let elapsed = Measurement.milliseconds(clock.now - start) / 1000
        func percentile(_ samples: [Double], _ p: Double) -> Double {
            let sorted = samples.sorted()
            return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
        }
        let batches = registry.batchesWritten - startBatches
        print(
            "registry churn: \(devices) devices, \(withRegistry.count) events in \(String(format: "%.1f", elapsed)) s"
        )
        for (name, samples) in [("without registry", withoutRegistry), ("with registry", withRegistry)] {
            print(
                String(
                    format: "  apply %@: p50 %.3f ms  p99 %.3f ms  max %.3f ms",
                    name,
                    percentile(samples, 0.5),
                    percentile(samples, 0.99),
                    samples.max() ?? 0
                )
            )
        }
        let records = recordTimes.all
        print(
            String(
                format: "  of which the registry's intake (record): p50 %.4f ms  p99 %.4f ms  max %.4f ms",
                percentile(records, 0.5),
                percentile(records, 0.99),
                records.max() ?? 0
            )
        )
        print(
            String(
                format: "  p50 ratio with/without: %.2f, p99 %.2f; write batches: %d (%.2f/s); "
                    + "database: %.1f KiB + log %.1f KiB (%d devices)",
                percentile(withRegistry, 0.5) / percentile(withoutRegistry, 0.5),
                percentile(withRegistry, 0.99) / percentile(withoutRegistry, 0.99),
                batches,
                Double(batches) / elapsed,
                Double(registry.sizesInBytes.database) / 1024,
                Double(registry.sizesInBytes.log) / 1024,
                registry.count
            )
        )
    }
}

/// Writes a registry of many devices, for the startup benchmark.
struct RegistryFill: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "registry-fill",
        abstract: "Write a device registry with --devices devices (each a host name, a MAC address, two addresses)."
    )

    @Option(help: "How many devices.")
    var devices = 10000

    @Option(help: "The database to write (created).")
    var database: String

    func run() async throws {
        let registry = DeviceRegistry(path: database, forgetAfter: .seconds(7 * 86400), logger: Logger(label: "fill"))
        let now = Date()
        for index in 0..<devices {
            let mac = String(format: "02:10:00:%02x:%02x:%02x", index / 65536, index / 256 % 256, index % 256)
            let hostName = "device-\(index).local"
            let id = DeviceID.make(hostName: hostName)
            let device = Device(
                id: id,
                hostName: hostName,
                displayName: "Device \(index)",
                addresses: ["10.\(index / 65536).\(index / 256 % 256).\(index % 256)", "fd00::\(index)"],
                interfaces: ["lan0"],
                services: [],
                macAddresses: [mac],
                vendor: nil,
                online: true
            )
            registry.record(
                DeviceRecords(
                    identityChanges: [.bound(.hostName(hostName), id), .bound(.macAddress(mac), id)],
                    devices: [device],
                    departed: [id]
                ),
                at: now - Double(index)
            )
        }
        guard await registry.flush() else { throw ExitCode.failure }
        let sizes = registry.sizesInBytes
        print("wrote \(registry.count) devices to \(database) (\((sizes.database + sizes.log) / 1024) KiB)")
    }
}

/// Whether the churn goes on: read by the writer task, ended by the churning one.
private final class ChurnFlag: Sendable {
    private let state = NIOLockedValueBox(true)
    var isOn: Bool { state.withLockedValue { $0 } }
    func stop() { state.withLockedValue { $0 = false } }
}

/// Durations collected from the store's executor.
private final class Samples: Sendable {
    private let state = NIOLockedValueBox<[Double]>([])
    func append(_ value: Double) { state.withLockedValue { $0.append(value) } }
    func removeAll() { state.withLockedValue { $0 = [] } }
    var all: [Double] { state.withLockedValue { $0 } }
}
