import Foundation
import Logging
import NeighbourTable
import TestSupport
import Testing

@Suite("The kernel's neighbour table, in namespaces of the test's own", .serialized, .timeLimit(.minutes(1)))
struct NeighbourTableTests {
    @Test func aDumpHasAnEntryAddedByHandWithItsMACAndState() throws {
        let link = try NamespaceLink()
        try runCommand(
            "ip",
            "-n",
            link.near,
            "neigh",
            "add",
            "10.9.0.9",
            "lladdr",
            "02:AA:BB:CC:DD:EE",
            "dev",
            "near0",
            "nud",
            "reachable"
        )
        let monitor = NeighbourMonitor(namespacePath: link.nearPath, logger: Logger.silent)
        let entry = try #require(try monitor.dump().first { $0.address == "10.9.0.9" })
        #expect(entry.family == .ipv4)
        #expect(entry.macAddress == "02:aa:bb:cc:dd:ee")
        #expect(entry.interfaceName == "near0", "named in the namespace read, not in the test's own")
        #expect(entry.state == .reachable)
        #expect(entry.confirmedAgo.map { $0 < .seconds(5) } == true)
    }

    @Test func theMonitorReportsTheTableThenEveryChangeInOrder() async throws {
        let link = try NamespaceLink()
        let monitor = NeighbourMonitor(namespacePath: link.nearPath, logger: Logger.silent)
        do {
            try await withThrowingTaskGroup { group in
                group.addTask { try await monitor.run() }
                var events = monitor.events.makeAsyncIterator()
                guard case .table = await events.next() else {
                    Issue.record("the first event is not the table")
                    return
                }
                try runCommand(
                    "ip",
                    "-n",
                    link.near,
                    "neigh",
                    "add",
                    "10.9.0.7",
                    "lladdr",
                    "02:00:00:00:00:07",
                    "dev",
                    "near0"
                )
                try runCommand(
                    "ip",
                    "-n",
                    link.near,
                    "neigh",
                    "change",
                    "10.9.0.7",
                    "lladdr",
                    "02:00:00:00:00:08",
                    "dev",
                    "near0"
                )
                try runCommand("ip", "-n", link.near, "neigh", "del", "10.9.0.7", "dev", "near0")
                var seen: [String] = []
                while seen.last != "removed", let event = await events.next() {
                    switch event {
                    case .updated(let entry) where entry.address == "10.9.0.7":
                        // Deleting an entry may first report it without its MAC address (its state cleared).
                        if let mac = entry.macAddress { seen.append("updated \(mac)") }
                    case .removed(let entry) where entry.address == "10.9.0.7":
                        seen.append("removed")
                    default:
                        break
                    }
                }
                #expect(seen == ["updated 02:00:00:00:00:07", "updated 02:00:00:00:00:08", "removed"])
                group.cancelAll()
            }
        }
    }

    @Test func aRequestedTableArrivesAsAnEventWithWhatChangedSince() async throws {
        let link = try NamespaceLink()
        let monitor = NeighbourMonitor(namespacePath: link.nearPath, logger: Logger.silent)
        try await withThrowingTaskGroup { group in
            group.addTask { try await monitor.run() }
            var events = monitor.events.makeAsyncIterator()
            guard case .table(let first) = await events.next() else {
                Issue.record("the first event is not the table")
                return
            }
            #expect(!first.contains { $0.address == "10.9.0.6" })
            try runCommand(
                "ip",
                "-n",
                link.near,
                "neigh",
                "add",
                "10.9.0.6",
                "lladdr",
                "02:00:00:00:00:06",
                "dev",
                "near0"
            )
            monitor.requestTable()  // dumped on the monitor's thread: this call returns at once
            var table: [NeighbourEntry]?
            while table == nil, let event = await events.next() {
                if case .table(let entries) = event { table = entries }
            }
            #expect(table?.first { $0.address == "10.9.0.6" }?.macAddress == "02:00:00:00:00:06")
            group.cancelAll()
        }
    }

    @Test func aHostThatAnswersIsReachableWithItsRealMAC() async throws {
        let link = try NamespaceLink()
        try poke(link.near, "10.9.0.2")
        try await Task.sleep(for: .milliseconds(200))
        let entries = try NeighbourMonitor(namespacePath: link.nearPath, logger: Logger.silent).dump()
        let entry = try #require(entries.first { $0.address == "10.9.0.2" })
        #expect(entry.macAddress == (try link.farMAC()))
        #expect(entry.state == .reachable)
    }

    @Test func aLinkLocalIPv6EntryCarriesItsInterface() async throws {
        let link = try NamespaceLink()
        let farLinkLocal = try runCommand("ip", "-n", link.far, "-6", "-br", "addr", "show", "far0", "scope", "link")
            .split(whereSeparator: \.isWhitespace).last.map { String($0.split(separator: "/")[0]) }
        let address = try #require(farLinkLocal)
        try poke(link.near, "\(address)%near0")
        try await Task.sleep(for: .milliseconds(200))
        let entries = try NeighbourMonitor(namespacePath: link.nearPath, logger: Logger.silent).dump()
        let entry = try #require(entries.first { $0.address.hasPrefix(address) })
        #expect(entry.address == "\(address)%near0")
        #expect(entry.family == .ipv6)
    }

    @Test func aForcedProbeVerifiesAPresentHostAndFailsAnAbsentOneInSeconds() async throws {
        let link = try NamespaceLink()
        try poke(link.near, "10.9.0.2")
        try await Task.sleep(for: .milliseconds(200))
        let monitor = NeighbourMonitor(namespacePath: link.nearPath, logger: Logger.silent)
        let prober = try NeighbourProber(namespacePath: link.nearPath)
        let present = try #require(try monitor.dump().first { $0.address == "10.9.0.2" })
        try prober.forceProbe(present)
        #expect(
            await eventually(within: .seconds(5)) {
                (try? monitor.dump().first { $0.address == "10.9.0.2" }?.state) == .reachable
            }
        )
        // The far end stops answering for the address: the forced probe fails it.
        try runCommand("ip", "-n", link.far, "addr", "del", "10.9.0.2/24", "dev", "far0")
        let start = ContinuousClock.now
        try prober.forceProbe(present)
        #expect(
            await eventually(within: .seconds(10)) {
                (try? monitor.dump().first { $0.address == "10.9.0.2" }?.state) == .failed
            }
        )
        #expect(ContinuousClock.now - start < .seconds(6))
    }

    @Test func runEndsSoonAfterItsTaskIsCancelled() async throws {
        let link = try NamespaceLink()
        let monitor = NeighbourMonitor(namespacePath: link.nearPath, logger: Logger.silent)
        let task = Task { try await monitor.run() }
        var events = monitor.events.makeAsyncIterator()
        _ = await events.next()
        let start = ContinuousClock.now
        task.cancel()
        _ = try? await task.value
        #expect(ContinuousClock.now - start < .seconds(1))
    }
}
