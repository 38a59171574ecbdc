import ArgumentParser
import Discovery
import Foundation
import PeerScanCore
import PeerScanModel

/// `peerscan-bench presence-check`: what a take of the device table costs when nothing is due, with every device
/// silent, against the same table with every device answering, in one run.
struct PresenceCheckBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "presence-check",
        abstract: "CPU of a device table take with nothing due, every device answering and every device silent.",
        discussion: """
            Builds the device table peerscand's store holds with --devices MAC-only devices (one neighbour entry \
            each, --offline-after 60 s, --forget-after 7 days), then times the take every batch of the store makes \
            (DeviceTable.takeChanges, which derives again the silent devices whose deadline passed) with nothing \
            due, once a simulated second for --checks seconds, twice: every entry reachable (nobody silent: the \
            anchor), and every entry stale, unconfirmed past --offline-after (every device silent and offline, none \
            forgotten yet). Reported: the median and p99 of one take, the CPU share of one take a second (what a \
            poll each second would cost), and the ratio of the medians.
            """
    )

    @Option(help: "MAC-only devices in the table.")
    var devices = 10_000

    @Option(help: "Checks timed in each run (one per simulated second).")
    var checks = 300

    func run() throws {
        let answering = measure(silent: false)
        let silent = measure(silent: true)
        print("presence-check: \(devices) devices, \(checks) checks a run")
        for (name, times) in [("answering", answering), ("silent", silent)] {
            let sorted = times.sorted()
            let median = sorted[sorted.count / 2]
            let p99 = sorted[min(sorted.count - 1, sorted.count * 99 / 100)]
            print(
                "presence-check: \(name): median \(Self.microseconds(median)) µs, p99 \(Self.microseconds(p99)) µs, "
                    + "CPU share at one a second \(String(format: "%.4f", median * 100)) %"
            )
        }
        let ratio = silent.sorted()[silent.count / 2] / max(answering.sorted()[answering.count / 2], 1e-9)
        print("presence-check: silent/answering median: \(String(format: "%.1f", ratio))×")
    }

    /// The seconds each check took.
    private func measure(silent: Bool) -> [Double] {
        var table = DeviceTable(presence: .init(offlineAfter: .seconds(60), forgetAfter: .seconds(7 * 86_400)))
        var now = Duration.seconds(1)
        let entries = (0..<devices).map { index in
            Neighbour(
                address: "10.\(index >> 16).\((index >> 8) & 255).\(index & 255)",
                interface: "lan0",
                macAddress: String(format: "02:00:00:%02x:%02x:%02x", index >> 16, (index >> 8) & 255, index & 255),
                state: .reachable,
                lastConfirmed: now
            )
        }
        table.replaceNeighbours(entries, now: now)
        _ = table.takeChanges(now: now)
        if silent {
            now += .seconds(5)
            table.replaceNeighbours(
                entries.map {
                    var entry = $0
                    entry.state = .stale  // not confirmed since: the host left
                    return entry
                },
                now: now
            )
            now += .seconds(120)
            _ = table.takeChanges(now: now)  // every device offline now
        }
        let clock = ContinuousClock()
        var times: [Double] = []
        for _ in 0..<checks {
            now += .seconds(1)
            let started = clock.now
            let taken = table.takeChanges(now: now)
            times.append(Self.seconds(clock.now - started))
            precondition(taken.changes.isEmpty, "a take with nothing due changes nothing")
        }
        return times
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private static func microseconds(_ seconds: Double) -> String { String(format: "%.1f", seconds * 1e6) }
}
