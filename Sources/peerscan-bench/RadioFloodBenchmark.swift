import ArgumentParser
import DeviceRegistry
import Discovery
import Foundation
import Glibc
import Logging
import MQTTClient
import NIOConcurrencyHelpers
import PeerScanCore
import PeerScanMQTT
import PeerScanModel

/// `peerscan-bench radio-flood`: what a Bluetooth address flood costs the store, the registry and the MQTT mirror,
/// against quiet air, in one run.
struct RadioFloodBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "radio-flood",
        abstract: "A Bluetooth address flood against quiet air: heap, peak RSS, CPU per batch, registry, MQTT.",
        discussion: """
            Drives peerscand's store on a simulated clock, one batch a second for --minutes: --stable advertisers \
            heard every second (a street's worth of neighbours' devices), and in the flood runs, for \
            --flood-minutes, --rate new random \
            static addresses a minute, each heard once and dropped by bluetoothd 30 s later (TemporaryTimeout), \
            as a "BLE spam" firmware does. Every changeset goes to the real registry (in memory) and the real MQTT \
            mirror (Home Assistant discovery on; a map of retained topics stands for the broker). Three runs: quiet \
            air, the flood with the defaults (admission after --bluetooth-admit-after, at most \
            --bluetooth-max-devices), and the flood with admission off and no cap (every identity address kept at \
            once: peerscand before admission). Reported per run: heap in use at the end and its peak (glibc's \
            malloc statistics), the process's peak RSS in the run, CPU per batch (median, p99) while the flood \
            lasts, devices listed at most, registry rows at the end (the stable advertisers', the flood's), \
            retained MQTT topics at the end and at most, and `new device` lines.
            """
    )

    @Option(help: "Simulated minutes per run: the flood lasts 10 of them; past 20 the stable advertisers are admitted.")
    var minutes = 25

    @Option(help: "Minutes the flood lasts (from the start).")
    var floodMinutes = 10

    @Option(help: "New flood addresses a minute.")
    var rate = 1000

    @Option(help: "Stable advertisers (heard throughout).")
    var stable = 50

    func run() async throws {
        print(
            "radio-flood: \(minutes) min simulated, \(stable) stable advertisers, flood \(rate) addresses/min for "
                + "\(floodMinutes) min"
        )
        let quiet = await measure(name: "quiet air", flood: false, settings: BluetoothSettings(away: .seconds(120)))
        let bounded = await measure(
            name: "flood, defaults",
            flood: true,
            settings: BluetoothSettings(away: .seconds(120))
        )
        let unbounded = await measure(
            name: "flood, unbounded",
            flood: true,
            settings: BluetoothSettings(away: .seconds(120), admitAfter: .zero, maxDevices: 10_000_000)
        )
        for result in [quiet, bounded, unbounded] { print(result.line) }
        print(
            String(
                format: "radio-flood: flood/quiet: peak RSS %.2fx (unbounded %.2fx), peak heap +%.1f MiB (unbounded "
                    + "+%.1f MiB), CPU per batch p50 %.2fx (unbounded %.2fx)",
                bounded.peakRSS / quiet.peakRSS,
                unbounded.peakRSS / quiet.peakRSS,
                bounded.peakHeap - quiet.peakHeap,
                unbounded.peakHeap - quiet.peakHeap,
                bounded.cpuMedian / max(quiet.cpuMedian, 1e-9),
                unbounded.cpuMedian / max(quiet.cpuMedian, 1e-9)
            )
        )
    }

    struct Result {
        var name: String
        var heap: Double
        var peakHeap: Double
        var peakRSS: Double
        var cpuMedian: Double
        var cpuP99: Double
        var maxListed: Int
        var stableRows: Int
        var floodRows: Int
        var topics: Int
        var maxTopics: Int
        var newDeviceLines: Int

        var line: String {
            String(
                format: "radio-flood: %@: heap %.1f MiB (peak %.1f), peak RSS %.1f MiB, CPU/batch p50 %.3f ms p99 "
                    + "%.3f ms, listed ≤ %d, registry rows %d stable + %d flood, MQTT retained %d (≤ %d), new device lines %d",
                name,
                heap,
                peakHeap,
                peakRSS,
                cpuMedian,
                cpuP99,
                maxListed,
                stableRows,
                floodRows,
                topics,
                maxTopics,
                newDeviceLines
            )
        }
    }

    private func measure(name: String, flood: Bool, settings: BluetoothSettings) async -> Result {
        Measurement.resetPeakResidentBytes()
        let baseHeap = Measurement.allocatedBytes()
        let clock = SimulatedClock()
        let updates = NIOLockedValueBox<[StoreUpdate]>([])
        let registry = DeviceRegistry(
            path: nil,
            forgetAfter: .seconds(7 * 86400),
            logger: Logger(label: "peerscan-bench") { _ in SwiftLogNoOpLogHandler() }
        )
        let topics = MQTTTopics(prefix: "peerscan/bench", hostName: "bench")
        let store = SnapshotStore(
            isScanning: true,
            interfaces: [],
            presence: .init(offlineAfter: .seconds(120), forgetAfter: .seconds(7 * 86400)),
            clock: ScanClock(clock),
            recordDevices: { registry.record($0) },
            bluetooth: settings,
            recordUpdate: { update in updates.withLockedValue { $0.append(update) } }
        )
        var mirror = MQTTMirror(
            settings: .init(topics: topics, homeAssistant: true),
            snapshot: await store.current().snapshot,
            sequence: 0,
            isRemembered: { registry.remembers($0) }
        )
        mirror.connected()
        var broker: [String: Int] = [:]
        var maxTopics = 0
        var peakHeap = 0
        var maxListed = 0
        var newDeviceLines = 0
        var cpu: [Double] = []
        var dropsDue: [(at: Int, address: String)] = []
        var floodIndex = 0
        let seconds = minutes * 60
        for second in 0..<seconds {
            clock.set(.seconds(second))
            let now = Duration.seconds(second)
            var inputs: [StoreInput] = (0..<stable).map { heard(address(stable: $0), at: now) }
            if flood, second < floodMinutes * 60 {
                let due = (second + 1) * rate / 60 - second * rate / 60
                for _ in 0..<due {
                    let address = address(flood: floodIndex)
                    floodIndex += 1
                    inputs.append(heard(address, at: now))
                    dropsDue.append((second + 30, address))
                }
            }
            if flood {
                while let first = dropsDue.first, first.at <= second {
                    dropsDue.removeFirst()
                    inputs.append(.discovery(.bluetooth(.removed(adapter: "hci0", address: first.address))))
                }
            }
            inputs.append(.presenceCheck)
            let cpuStart = Self.processCPUTime()
            let effects = await store.apply(inputs)
            for update in updates.withLockedValue({ updates in
                defer { updates = [] }
                return updates
            }) {
                mirror.apply(update.changes, sequence: update.sequence)
            }
            while case let messages = mirror.takeMessages(), !messages.isEmpty {
                for (offset, message) in messages.enumerated() {
                    if message.retain {
                        if message.payload.isEmpty { broker[message.topic] = nil } else { broker[message.topic] = 1 }
                    }
                    mirror.sent(messageID: Int32(offset + 1))
                    mirror.acknowledged(messageID: Int32(offset + 1))
                }
            }
            if second < floodMinutes * 60 { cpu.append((Self.processCPUTime() - cpuStart) * 1e3) }
            newDeviceLines += effects.logs.filter { $0.message == .newDevice }.count
            maxListed = max(maxListed, await store.deviceCount)
            maxTopics = max(maxTopics, broker.count)
            peakHeap = max(peakHeap, Measurement.allocatedBytes() - baseHeap)
        }
        cpu.sort()
        let stableRows = (0..<stable).count { registry.remembers(DeviceID.make(bluetoothAddress: address(stable: $0))) }
        let mebibyte = 1024.0 * 1024.0
        let result = Result(
            name: name,
            heap: Double(Measurement.allocatedBytes() - baseHeap) / mebibyte,
            peakHeap: Double(peakHeap) / mebibyte,
            peakRSS: Double(Measurement.residentBytes().peak) / mebibyte,
            cpuMedian: cpu[cpu.count / 2],
            cpuP99: cpu[cpu.count * 99 / 100],
            maxListed: maxListed,
            stableRows: stableRows,
            floodRows: registry.count - stableRows,
            topics: broker.count,
            maxTopics: maxTopics,
            newDeviceLines: newDeviceLines
        )
        return result
    }

    /// The process's CPU time in seconds.
    private static func processCPUTime() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    private func heard(_ address: String, at time: Duration) -> StoreInput {
        .discovery(
            .bluetooth(
                .advertised(
                    BluetoothAdvertisement(
                        adapter: "hci0",
                        address: address,
                        addressType: .randomStatic,
                        name: nil,
                        appearance: nil,
                        manufacturerData: [BluetoothManufacturerData(companyID: 0x004C, data: [0x12, 0x19, 0x10])],
                        serviceUUIDs: [],
                        rssi: -70,
                        lastSeen: time,
                        isTemporary: true
                    )
                )
            )
        )
    }

    private func address(stable n: Int) -> String { Self.format([0xC5, 0x00, 0x00, 0x00, n >> 8, n]) }
    private func address(flood n: Int) -> String {
        Self.format([0xC0 | (n >> 24 & 0x3F), n >> 16, n >> 8, n, 0xF1, 0x00])
    }

    private static func format(_ octets: [Int]) -> String {
        octets.map { String(format: "%02x", $0 & 0xFF) }.joined(separator: ":")
    }
}

/// A clock the benchmark sets: the store's now. Nothing sleeps on it.
private final class SimulatedClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let current = NIOLockedValueBox(Duration.zero)
    var now: Instant { Instant(offset: current.withLockedValue { $0 }) }
    var minimumResolution: Duration { .zero }
    func set(_ time: Duration) { current.withLockedValue { $0 = time } }
    func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws { throw CancellationError() }
}
