import ArgumentParser
import DeviceRegistry
import Discovery
import Foundation
import Logging
import PeerScanCore
import PeerScanModel
import SeededRandom
import TestSupport

/// `peerscan-bench beacon-flood`: what a Wi-Fi beacon flood costs the store and the registry, against quiet air, in
/// one run.
struct BeaconFloodBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "beacon-flood",
        abstract: "A Wi-Fi beacon flood against quiet air: heap, peak RSS, CPU per scan, list, registry rows.",
        discussion: """
            Drives peerscand's store on a simulated clock for --minutes, its wireless table configured as peerscand \
            configures it (--wifi-expire 150 s, the cap), with a scan's results every --scan-interval seconds: \
            --stable networks (a few with two or three access points) heard in every scan, and in the flood runs, \
            for --flood-minutes, --rate new random SSIDs a minute, each its own BSSID, in the scan results for 30 s \
            after it was heard (cfg80211 keeps a BSS that long; the flood's beacons stop), some stronger than the \
            stable networks. What the store records goes to a real registry file in a temporary directory, flushed \
            every second and forgetting every minute as peerscand's registry service does. Three runs: quiet air, \
            the flood with the defaults (--wifi-networks-max 256 and the registry's bound from it), and the flood \
            unbounded (no cap, no registry bound: peerscand before issue 35). Reported per run: heap in use at the \
            end and its peak (glibc's malloc statistics), the process's peak RSS in the run, CPU per scan (median, \
            p99) while the flood lasts, networks listed at most, registry rows at the end, `new wifi network` \
            lines, and how often a stable network left the list.
            """
    )

    /// The run's length and the flood's.
    @OptionGroup var schedule: FloodOptions

    @Option(help: "Stable networks (heard in every scan).")
    var stable = 30

    @Option(help: "Simulated seconds between scans.")
    var scanInterval = 10

    func validate() throws {
        guard stable >= 1, scanInterval >= 1 else {
            throw ValidationError("--stable and --scan-interval must be at least 1.")
        }
    }

    func run() async throws {
        print(
            "beacon-flood: \(schedule.minutes) min simulated, \(stable) stable networks, a scan every "
                + "\(scanInterval) s, flood \(schedule.rate) SSIDs/min for \(schedule.floodMinutes) min"
        )
        let defaults = NetworkCapacity()
        let quiet = try await measure(name: "quiet air", flood: false, capacity: defaults, limit: NetworkRowLimit())
        let bounded = try await measure(
            name: "flood, defaults",
            flood: true,
            capacity: defaults,
            limit: NetworkRowLimit()
        )
        let unbounded = try await measure(
            name: "flood, unbounded",
            flood: true,
            capacity: NetworkCapacity(maximum: 10_000_000),
            limit: nil
        )
        for result in [quiet, bounded, unbounded] { print(result.line) }
        print(
            "beacon-flood: flood/quiet: "
                + FloodCost.ratios(quiet: quiet.cost, bounded: bounded.cost, unbounded: unbounded.cost, per: "scan")
                + String(
                    format: ", registry networks %.1fx (unbounded %.1fx)",
                    Double(bounded.registryNetworks) / Double(max(quiet.registryNetworks, 1)),
                    Double(unbounded.registryNetworks) / Double(max(quiet.registryNetworks, 1))
                )
        )
    }

    struct Result {
        var name: String
        var seconds: Double
        var cost: FloodCost
        var maxListed: Int
        var registryNetworks: Int
        var registryAccessPoints: Int
        var newNetworkLines: Int
        var stableEvictions: Int
        /// How many stable networks were evicted at least once, and the strongest one's signal in dBm.
        var evictedNetworks: Int
        var strongestEvicted: Int?
        /// The stable networks listed at the end.
        var stableListedAtEnd: Int

        var line: String {
            String(
                format: "beacon-flood: %@: %@, listed ≤ %d, registry rows %d networks + %d access points, new wifi "
                    + "network lines %d, stable networks evicted %d times (%d networks%@), %d listed at the end "
                    + "(%.1f s)",
                name,
                cost.text(per: "scan"),
                maxListed,
                registryNetworks,
                registryAccessPoints,
                newNetworkLines,
                stableEvictions,
                evictedNetworks,
                strongestEvicted.map { ", the strongest at \($0) dBm" } ?? "",
                stableListedAtEnd,
                seconds
            )
        }
    }

    private func measure(
        name: String,
        flood: Bool,
        capacity: NetworkCapacity,
        limit: NetworkRowLimit?
    ) async throws -> Result {
        let started = ContinuousClock.now
        var meter = FloodMeter()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("beacon-flood-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let base = Date()
        let forgetAfter = Duration.seconds(7 * 86400)
        let clock = ManualClock()
        let registry = DeviceRegistry(
            path: directory + "/registry.sqlite",
            forgetAfter: forgetAfter,
            now: base,
            logger: Logger(label: "peerscan-bench") { _ in SwiftLogNoOpLogHandler() }
        )
        let store = SnapshotStore(
            isScanning: true,
            interfaces: [],
            wireless: WirelessTable(expiry: .seconds(150), capacity: capacity),
            clock: ScanClock(clock),
            recorders: StoreRecorders(networks: { registry.record($0, at: base + Self.seconds(clock.now.offset)) })
        )
        let air = Air(stable: stable)
        var maxListed = 0
        var newNetworkLines = 0
        var stableEvictions = 0
        var evicted = Set<DeviceID>()
        var stableListed = Set<DeviceID>()
        var flooding: [(heard: Int, index: Int)] = []
        var floodIndex = 0
        for second in 0..<(schedule.minutes * 60) {
            clock.advance(to: .seconds(second))
            if flood {
                for _ in 0..<schedule.newcomers(at: second) {
                    flooding.append((second, floodIndex))
                    floodIndex += 1
                }
            }
            while let first = flooding.first, second - first.heard >= Air.cacheSeconds {
                flooding.removeFirst()
            }
            var inputs: [StoreInput] = []
            let isScan = second % scanInterval == 0
            if isScan {
                let results =
                    air.stableAccessPoints(at: .seconds(second))
                    + flooding.map { air.floodAccessPoint(heard: $0.heard, index: $0.index) }
                inputs.append(.discovery(.wireless(.scanResults(interface: "wlan0", accessPoints: results))))
            }
            inputs.append(.presenceCheck)
            let cpuStart = meter.batchStarts()
            let effects = await store.apply(inputs)
            meter.batchEnded(startedAt: cpuStart, counts: isScan && schedule.isFlooding(at: second))
            newNetworkLines += effects.logs.count { $0.message == .newWiFiNetwork }
            let now = base + TimeInterval(second)
            await registry.flush(now: now)
            if second % 60 == 59 { await registry.forgetNetworks(forgetAfter: forgetAfter, limit: limit, now: now) }
            if isScan {
                let listed = await store.current().snapshot.items(inSection: .networks)?.compactMap(\.wifiNetwork) ?? []
                maxListed = max(maxListed, listed.count)
                let stableNow = Set(listed.lazy.map(\.id).filter { air.stableSignals[$0] != nil })
                for network in stableListed.subtracting(stableNow) {
                    stableEvictions += 1
                    evicted.insert(network)
                }
                stableListed = stableNow
            }
            meter.noteHeap()
        }
        let rows = try await registry.networkRowCounts()
        return Result(
            name: name,
            seconds: Self.seconds(ContinuousClock.now - started),
            cost: meter.cost(),
            maxListed: maxListed,
            registryNetworks: rows.networks,
            registryAccessPoints: rows.accessPoints,
            newNetworkLines: newNetworkLines,
            stableEvictions: stableEvictions,
            evictedNetworks: evicted.count,
            strongestEvicted: evicted.compactMap { air.stableSignals[$0] }.max(),
            stableListedAtEnd: stableListed.count
        )
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        Measurement.milliseconds(duration) / 1e3
    }
}

/// What is in the air: the stable networks, and the flood's made-up ones.
private struct Air {
    /// The stable networks' access points: every fifth network has three, the next one two, the others one.
    let stable: [(ssid: String, bssid: String, signal: Int)]
    /// The stable networks, with their strongest access point's signal.
    let stableSignals: [DeviceID: Int]
    /// How long cfg80211 keeps an access point in its scan results after it was last heard.
    static let cacheSeconds = 30
    private static let ssidCharacters = Array("abcdefghijklmnopqrstuvwxyz0123456789")

    init(stable count: Int) {
        var stable: [(ssid: String, bssid: String, signal: Int)] = []
        for n in 0..<count {
            let points = n % 5 == 0 ? 3 : n % 5 == 1 ? 2 : 1
            for point in 0..<points {
                stable.append(("street-\(n)", Self.bssid(0x02, n, point), -50 - n * 13 % 35 - point * 4))
            }
        }
        self.stable = stable
        stableSignals = Dictionary(
            stable.map { (DeviceID.make(ssid: $0.ssid, security: .wpa2Personal), $0.signal) },
            uniquingKeysWith: max
        )
    }

    func stableAccessPoints(at now: Duration) -> [AccessPoint] {
        stable.map { point in
            AccessPoint(
                bssid: point.bssid,
                ssid: point.ssid,
                security: .wpa2Personal,
                frequency: 2437,
                signal: point.signal,
                lastSeen: now,
                isConnected: false
            )
        }
    }

    /// Flood network `index`, heard at `heard` and not since: a random SSID (a seeded generator, so that runs
    /// compare), its own BSSID, a signal from -40 to -95 dBm.
    func floodAccessPoint(heard: Int, index: Int) -> AccessPoint {
        var random = SeededGenerator(seed: UInt64(index))
        let ssid = String(
            (0..<12).map { _ in Self.ssidCharacters[Int(random.next() % UInt64(Self.ssidCharacters.count))] }
        )
        return AccessPoint(
            bssid: Self.bssid(0x06, index >> 8, index),
            ssid: ssid,
            security: index % 3 == 0 ? .open : .wpa2Personal,
            frequency: 2412 + 5 * (index % 13),
            signal: -40 - index * 37 % 56,
            lastSeen: .seconds(heard),
            isConnected: false
        )
    }

    private static func bssid(_ first: Int, _ high: Int, _ low: Int) -> String {
        [first, 0xBE, 0xAC, high >> 8, high, low].map { String(format: "%02x", $0 & 0xFF) }.joined(separator: ":")
    }
}
