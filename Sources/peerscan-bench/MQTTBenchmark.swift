import ArgumentParser
import Discovery
import Foundation
import Logging
import MQTTClient
import NIOConcurrencyHelpers
import PeerScanCore
import PeerScanMQTT
import PeerScanModel

/// The MQTT mirror against a real broker: the initial publication of many devices, the delay of single-device
/// changes to a subscriber, and the republication after a broker restart.
struct MQTTBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mqtt",
        abstract: "The MQTT mirror: initial publication, change delay, republication after a broker restart.",
        discussion: """
            Starts mosquitto with --mosquitto-config (listening on 127.0.0.1:--port, no persistence) and a \
            subscriber on the devices' topics (a second libmosquitto connection in this process). A store learns \
            --devices MAC-only devices (neighbour entries), then peerscand's MQTT service starts: reported, the \
            seconds until the subscriber has every device and the process's peak RSS then. Then --changes \
            single-device changes (a new address each), one every 1/--rate s: the delay from the store's apply to \
            the subscriber's message, p50/p99/max. Then the broker is stopped and started again: the seconds from \
            its start until the subscriber has every device again. Run it in a network namespace of its own \
            (benchmarks/mqtt.py does).
            """
    )

    @Option(help: "How many devices.")
    var devices = 10_000

    @Option(help: "How many single-device changes are timed.")
    var changes = 1000

    @Option(help: "Changes per second.")
    var rate = 100

    @Option(help: "The mosquitto configuration file (a listener on 127.0.0.1:--port).")
    var mosquittoConfig: String

    @Option(help: "The broker's port.")
    var port = 1883

    func run() async throws {
        let silent = Logger(label: "peerscan-bench") { _ in SwiftLogNoOpLogHandler() }
        var broker = try startBroker()
        defer { broker.stop() }
        let topics = MQTTTopics(prefix: "peerscan/bench", hostName: "bench")
        let subscriber = try BenchSubscriber(port: port, filter: topics.allDevices)

        let store = SnapshotStore(
            isScanning: true,
            interfaces: ["lan0"],
            devices: DeviceTable(presence: .init(offlineAfter: .zero, forgetAfter: .seconds(86400)))
        )
        var addresses = Array(0..<devices)
        await store.apply([.discovery(.neighbour(.neighbourTable((0..<devices).map { neighbour($0, address: $0) })))])
        Measurement.resetPeakResidentBytes()
        let service = MQTTService(
            store: store,
            configuration: MQTTConfiguration(host: "127.0.0.1", port: port, clientID: topics.clientID),
            settings: MQTTMirror.Settings(topics: topics),
            logger: silent
        )
        do {
            try await measure(store: store, service: service, subscriber: subscriber, broker: &broker)
        } catch {
            await subscriber.connection.stop()
            throw error
        }
        await subscriber.connection.stop()
    }

    /// The three measurements: the initial publish, the change delay, the broker's restart.
    private func measure(
        store: SnapshotStore,
        service: MQTTService,
        subscriber: BenchSubscriber,
        broker: inout Broker
    ) async throws {
        let clock = ContinuousClock()
        var addresses = Array(0..<devices)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await subscriber.consume() }
            defer { group.cancelAll() }  // the subscriber's stream ends with its task
            try await subscriber.waitConnected()
            let started = clock.now
            group.addTask { try await service.run() }
            try await subscriber.waitForDevices(devices, timeout: .seconds(300))
            let initial = clock.now - started
            let memory = Measurement.residentBytes()
            report(
                String(
                    format: "mqtt initial publish: %d devices in %.2f s; peak RSS %.1f MiB "
                        + "(this process: store, mirror and subscriber)",
                    devices,
                    Measurement.milliseconds(initial) / 1000,
                    Double(memory.peak) / 1_048_576
                )
            )

            var delays: [Double] = []
            var storeTimes: [Double] = []  // of which the store's own apply (the diff), before the mirror sees it
            let begin = clock.now
            for change in 0..<changes {
                let due = begin + .nanoseconds(Int64(1e9 / Double(rate) * Double(change)))
                if due > clock.now { try await Task.sleep(until: due, clock: clock) }
                let index = change * 7919 % devices
                addresses[index] += devices
                let address = Self.address(addresses[index])
                let applied = clock.now
                await store.apply([
                    .discovery(.neighbour(.neighbourUpdated(neighbour(index, address: addresses[index]))))
                ])
                storeTimes.append(Measurement.milliseconds(clock.now - applied))
                let arrived = try await subscriber.waitForAddress(address, timeout: .seconds(10))
                delays.append(Measurement.milliseconds(arrived - applied))
            }
            delays.sort()
            storeTimes.sort()
            report(
                String(
                    format: "mqtt change delay (store apply -> subscriber), %d single-device changes at %d/s: "
                        + "p50 %.2f ms  p99 %.2f ms  max %.2f ms (of which the store's apply: p50 %.2f ms  p99 %.2f ms)",
                    delays.count,
                    rate,
                    delays[delays.count / 2],
                    delays[min(delays.count - 1, delays.count * 99 / 100)],
                    delays.last ?? 0,
                    storeTimes[storeTimes.count / 2],
                    storeTimes[min(storeTimes.count - 1, storeTimes.count * 99 / 100)]
                )
            )

            broker.stop()
            subscriber.forgetDevices()
            let restarted = clock.now
            broker = try startBroker()
            try await subscriber.waitForDevices(devices, timeout: .seconds(120))
            report(
                String(
                    format: "mqtt broker restart: all %d devices republished %.2f s after the broker started again",
                    devices,
                    Measurement.milliseconds(clock.now - restarted) / 1000
                )
            )
        }
    }

    /// Prints a result at once, also into a pipe.
    private func report(_ line: String) {
        print(line)
        fflush(nil)
    }

    private func neighbour(_ index: Int, address: Int) -> Neighbour {
        Neighbour(
            address: Self.address(address),
            interface: "lan0",
            macAddress: String(format: "02:00:00:%02x:%02x:%02x", index / 65536, index / 256 % 256, index % 256),
            state: .reachable,
            lastConfirmed: nil
        )
    }

    private static func address(_ number: Int) -> String {
        "10.\(number / 65536 % 256).\(number / 256 % 256).\(number % 256)"
    }

    /// Starts mosquitto with no signal blocked (posix_spawn; its pid is reaped with waitpid).
    private func startBroker() throws -> Broker {
        var pid: pid_t = 0
        let argv = ["/usr/sbin/mosquitto", "-c", mosquittoConfig]
        var cArguments = argv.map { strdup($0) } + [nil]
        defer { for argument in cArguments { free(argument) } }
        // The calling thread is a worker of the concurrency pool, which blocks signals: the broker must not inherit
        // that mask, or it ignores the SIGTERM that stops it.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        guard posix_spawn(&pid, argv[0], nil, &attributes, &cArguments, environ) == 0 else {
            throw ValidationError("cannot start \(argv[0])")
        }
        return Broker(pid: pid)
    }
}

/// The broker's process.
private struct Broker {
    let pid: pid_t

    /// Stops it (SIGTERM) and waits for it to end.
    func stop() {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }
}

/// A subscriber on the device topics: which devices it has seen (since ``forgetDevices()``) and when each address
/// first arrived.
private final class BenchSubscriber: Sendable {
    let connection: MQTTConnection
    private let state = NIOLockedValueBox<State>(State())
    private let filter: String

    private struct State {
        var connected = false
        var topics = Set<String>()
        var addresses: [String: ContinuousClock.Instant] = [:]
    }

    init(port: Int, filter: String) throws {
        self.filter = filter
        connection = try MQTTConnection(
            configuration: MQTTConfiguration(host: "127.0.0.1", port: port, clientID: "peerscan-bench-subscriber")
        )
        connection.start()
    }

    /// Reads the connection's events until it stops, stamping each arrival.
    func consume() async {
        for await event in connection.events { handle(event) }
    }

    private func handle(_ event: MQTTEvent) {
        let now = ContinuousClock.now
        switch event {
        case .connected:
            try? connection.subscribe(filter)
            state.withLockedValue { $0.connected = true }
        case .received(let message):
            guard !message.payload.isEmpty,
                let object = try? JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any]
            else { return }
            let addresses = object["addresses"] as? [String] ?? []
            state.withLockedValue { state in
                state.topics.insert(message.topic)
                for address in addresses where state.addresses[address] == nil { state.addresses[address] = now }
            }
        default:
            break
        }
    }

    func forgetDevices() { state.withLockedValue { $0.topics = [] } }

    func waitConnected() async throws {
        try await poll(timeout: .seconds(10), "the subscriber's connection") { $0.connected ? () : nil }
    }

    func waitForDevices(_ count: Int, timeout: Duration) async throws {
        try await poll(timeout: timeout, "\(count) devices") { $0.topics.count >= count ? () : nil }
    }

    func waitForAddress(_ address: String, timeout: Duration) async throws -> ContinuousClock.Instant {
        try await poll(timeout: timeout, "address \(address)") { $0.addresses[address] }
    }

    /// Checks `found` every 100 µs: the arrival time is stamped by the reader, so polling adds no error to it.
    private func poll<T>(timeout: Duration, _ what: String, _ found: (State) -> T?) async throws -> T {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let value = state.withLockedValue({ found($0) }) { return value }
            guard ContinuousClock.now < deadline else {
                let seen = state.withLockedValue { ($0.topics.count, $0.addresses.count) }
                throw ValidationError("timed out waiting for \(what) (seen: \(seen.0) devices, \(seen.1) addresses)")
            }
            try await Task.sleep(for: .microseconds(100))
        }
    }
}
