import Glibc
import InMemoryLogging
import Logging
import Probing
import TestSupport
import Testing

@Suite("The probe service on a real link, in namespaces of the test's own", .serialized, .timeLimit(.minutes(1)))
struct ProbeServiceTests {
    @Test func roundsSweepTheSubnetAndReprobeTheHostsTheKernelKnows() async throws {
        let link = try NamespaceLink()
        let logs = InMemoryLogHandler()
        var logger = Logger(label: "peerscan.tests") { _ in logs }
        logger.logLevel = .debug
        let service = try ProbeService(
            interval: .milliseconds(300),
            scope: { ["near0"] },
            logger: logger,
            namespacePath: link.nearPath
        )
        let running = Task { try await service.run() }
        defer { running.cancel() }
        // The first round's dump may come before the far host answered; a later round knows it. As root, every
        // known entry is forced to PROBE.
        let forcesWhatItKnows = await eventually(within: .seconds(20)) {
            logs.entries.contains { entry in
                guard entry.message == "probe round", let known = entry.metadata["known"].flatMap({ Int("\($0)") })
                else { return false }
                return known >= 1 && entry.metadata["forced"] == (getuid() == 0 ? "\(known)" : "0")
            }
        }
        #expect(forcesWhatItKnows)
        let announcements = logs.entries.filter { $0.message == "probing" }
        #expect(announcements.count == 1, "the first round only")
        #expect(announcements.first?.metadata["addresses"] == "253")
        #expect(announcements.first?.metadata["interfaces"] == "near0")
        #expect(announcements.first?.metadata["reverify"] == (getuid() == 0 ? "forced" : "traffic"))
        running.cancel()
        try await running.value
    }

    @Test func whileScanningIsOffNoRoundRuns() async throws {
        let link = try NamespaceLink()
        let logs = InMemoryLogHandler()
        var logger = Logger(label: "peerscan.tests") { _ in logs }
        logger.logLevel = .debug
        let (asked, ask) = AsyncStream<Void>.makeStream()
        let service = try ProbeService(
            interval: .milliseconds(20),
            scope: {
                ask.yield()
                return nil
            },
            logger: logger,
            namespacePath: link.nearPath
        )
        let running = Task { try await service.run() }
        defer { running.cancel() }
        var questions = asked.makeAsyncIterator()
        for _ in 0..<3 { await questions.next() }
        #expect(logs.entries.isEmpty)
        // Nothing was sent: the kernel was asked to resolve no address of the subnet.
        #expect(try runCommand("ip", "-n", link.near, "neigh", "show", "dev", "near0").isEmpty)
    }

    @Test func asksWithinTheFloorAreServedByOneRoundAtItsEnd() async throws {
        let link = try NamespaceLink()
        let logs = InMemoryLogHandler()
        var logger = Logger(label: "peerscan.tests") { _ in logs }
        logger.logLevel = .debug
        let service = try ProbeService(
            interval: .seconds(3600),  // no round but the first and the asked-for ones
            floor: .seconds(1),
            rate: 10_000,
            scope: { ["near0"] },
            logger: logger,
            namespacePath: link.nearPath
        )
        let running = Task { try await service.run() }
        defer { running.cancel() }
        func rounds() -> [InMemoryLogHandler.Entry] { logs.entries.filter { $0.message == "probe round" } }
        #expect(await eventually(within: .seconds(20)) { rounds().count == 1 })
        let firstDone = ContinuousClock.now
        for _ in 0..<50 { service.askForRound() }
        #expect(await eventually(within: .seconds(20)) { rounds().count == 2 })
        #expect(rounds().map { $0.metadata["asked"] } == ["0", "50"], "one round serves the 50 asks")
        // Well within the floor of the round that served them: no third round.
        try await Task.sleep(for: .milliseconds(300))
        #expect(rounds().count == 2)
        #expect(ContinuousClock.now - firstDone < .seconds(20))
        running.cancel()
        try await running.value
    }

    @Test func aSweepSendsNoFasterThanTheRate() async throws {
        let link = try NamespaceLink()
        let logs = InMemoryLogHandler()
        var logger = Logger(label: "peerscan.tests") { _ in logs }
        logger.logLevel = .debug
        let service = try ProbeService(
            interval: .seconds(3600),
            rate: 200,
            scope: { ["near0"] },
            logger: logger,
            namespacePath: link.nearPath
        )
        let started = ContinuousClock.now
        let running = Task { try await service.run() }
        defer { running.cancel() }
        #expect(await eventually(within: .seconds(30)) { logs.entries.contains { $0.message == "probe round" } })
        let elapsed = ContinuousClock.now - started
        // 253 addresses and the echo requests at 200 a second, after a burst of 4 (a fiftieth of a second's worth):
        // at least (253 + 1 - 4) / 200 = 1.25 s, however fast the machine.
        #expect(elapsed >= .milliseconds(1250), "the sweep took \(elapsed)")
        let announcement = logs.entries.first { $0.message == "probing" }
        #expect(announcement?.metadata["rate"] == "200")
        #expect(announcement?.metadata["floor"] == "5.0 seconds")
        running.cancel()
        try await running.value
    }

    @Test func aNamespaceThatCannotBeEnteredIsATypedErrorThatSaysWhich() {
        do {
            _ = try ProbeService(
                interval: .seconds(1),
                scope: { nil },
                logger: .silent,
                namespacePath: "/run/netns/peerscan-no-such-namespace"
            )
            Issue.record("a service was made in a namespace that does not exist")
        } catch {
            #expect(error.operation == "open /run/netns/peerscan-no-such-namespace")
            #expect(error.code == ENOENT)
            #expect("\(error)".hasPrefix("open /run/netns/peerscan-no-such-namespace: No such file or directory"))
        }
    }
}
