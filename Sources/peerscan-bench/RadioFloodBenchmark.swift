import ArgumentParser
import DeviceRegistry
import Discovery
import Foundation
import Logging
import MQTTClient
import NIOConcurrencyHelpers
import PeerScanCore
import PeerScanMQTT
import PeerScanModel
import TestSupport

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

    /// The run's length and the flood's (past 20 minutes the stable advertisers are admitted).
    @OptionGroup var schedule: FloodOptions

    @Option(help: "Stable advertisers (heard throughout).")
    var stable = 50

    func run() async throws {
        print(
            "radio-flood: \(schedule.minutes) min simulated, \(stable) stable advertisers, flood \(schedule.rate) "
                + "addresses/min for \(schedule.floodMinutes) min"
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
            "radio-flood: flood/quiet: "
                + FloodCost.ratios(quiet: quiet.cost, bounded: bounded.cost, unbounded: unbounded.cost, per: "batch")
        )
    }

    struct Result {
        var name: String
        var cost: FloodCost
        var maxListed: Int
        var stableRows: Int
        var floodRows: Int
        var topics: Int
        var maxTopics: Int
        var newDeviceLines: Int

        var line: String {
            String(
                format:
                    "radio-flood: %@: %@, listed ≤ %d, registry rows %d stable + %d flood, MQTT retained %d (≤ %d), "
                    + "new device lines %d",
                name,
                cost.text(per: "batch"),
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
        var meter = FloodMeter()
        let clock = ManualClock()
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
            devices: DeviceTable(
                presence: .init(offlineAfter: .seconds(120), forgetAfter: .seconds(7 * 86400)),
                bluetooth: settings
            ),
            clock: ScanClock(clock),
            recorders: StoreRecorders(
                devices: { registry.record($0) },
                updates: { update in updates.withLockedValue { $0.append(update) } }
            )
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
        var maxListed = 0
        var newDeviceLines = 0
        var dropsDue: [(at: Int, address: String)] = []
        var floodIndex = 0
        for second in 0..<(schedule.minutes * 60) {
            clock.advance(to: .seconds(second))
            let now = Duration.seconds(second)
            var inputs: [StoreInput] = (0..<stable).map { heard(address(stable: $0), at: now) }
            if flood {
                for _ in 0..<schedule.newcomers(at: second) {
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
            let cpuStart = meter.batchStarts()
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
            meter.batchEnded(startedAt: cpuStart, counts: schedule.isFlooding(at: second))
            newDeviceLines += effects.logs.filter { $0.message == .newDevice }.count
            maxListed = max(maxListed, await store.deviceCount)
            maxTopics = max(maxTopics, broker.count)
            meter.noteHeap()
        }
        let stableRows = (0..<stable).count { registry.remembers(DeviceID.make(bluetoothAddress: address(stable: $0))) }
        let result = Result(
            name: name,
            cost: meter.cost(),
            maxListed: maxListed,
            stableRows: stableRows,
            floodRows: registry.count - stableRows,
            topics: broker.count,
            maxTopics: maxTopics,
            newDeviceLines: newDeviceLines
        )
        return result
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
