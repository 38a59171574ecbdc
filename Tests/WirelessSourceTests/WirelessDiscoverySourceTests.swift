import Discovery
import InMemoryLogging
import Logging
import NIOConcurrencyHelpers
import Nl80211
import PeerScanModel
import Testing

@testable import WirelessSource

/// A kernel that answers from values the test sets.
final class FakeKernel: WirelessKernel {
    let events: AsyncStream<Nl80211Event>
    let continuation: AsyncStream<Nl80211Event>.Continuation
    let interfaceList = NIOLockedValueBox<[Nl80211Interface]>([])
    let results = NIOLockedValueBox<[Int32: [Nl80211BSS]]>([:])
    let triggerError = NIOLockedValueBox<Nl80211Error?>(nil)
    let triggered = NIOLockedValueBox<[String]>([])
    /// What the next runs throw, one each, in order; once none is left, a run subscribes.
    let runErrors: NIOLockedValueBox<[Nl80211Error]>
    /// How many times ``run()`` was called.
    let runs = NIOLockedValueBox(0)

    init(runErrors: [Nl80211Error] = []) {
        self.runErrors = NIOLockedValueBox(runErrors)
        (events, continuation) = AsyncStream.makeStream()
    }

    func run() async throws {
        runs.withLockedValue { $0 += 1 }
        if let error = runErrors.withLockedValue({ $0.isEmpty ? nil : $0.removeFirst() }) { throw error }
        continuation.yield(.subscribed)
        try await Task.sleep(for: .seconds(3600))
    }
    func interfaces() throws -> [Nl80211Interface] { interfaceList.withLockedValue { $0 } }
    func scanResults(interfaceIndex: Int32, interfaceName: String) throws -> [Nl80211BSS] {
        results.withLockedValue { $0[interfaceIndex] ?? [] }
    }
    func triggerScan(interfaceIndex: Int32, interfaceName: String) throws {
        if let error = triggerError.withLockedValue({ $0 }) { throw error }
        triggered.withLockedValue { $0.append(interfaceName) }
    }
}

func station(_ index: Int32, _ name: String, up: Bool = true, ssid: String? = nil) -> Nl80211Interface {
    Nl80211Interface(
        index: index,
        name: name,
        type: .station,
        ssid: ssid.map { Array($0.utf8) },
        frequency: nil,
        isUp: up
    )
}

func bss(_ last: UInt8, ssid: String, associated: Bool = false, signal: Int = -4550) -> Nl80211BSS {
    Nl80211BSS(
        bssid: [2, 0, 0, 0, last, 0],
        frequency: 2437,
        signalMBM: signal,
        seenMillisecondsAgo: 500,
        capability: 0x0411,
        status: associated ? .associated : nil,
        informationElements: element(0, Array(ssid.utf8)) + element(48, rsnBody(akms: [2])),
        beaconInformationElements: nil
    )
}

/// The source over a fake kernel, browsing, and what it emitted so far (read after finishing its stream).
struct Harness {
    let kernel: FakeKernel
    let source: WirelessDiscoverySource
    let logs = InMemoryLogHandler()

    init(interfaces: [String] = [], kernel: FakeKernel = FakeKernel(), clock: ScanClock = ScanClock(ContinuousClock()))
    {
        self.kernel = kernel
        let logs = self.logs
        source = WirelessDiscoverySource(
            kernel: kernel,
            interfaces: interfaces,
            scanInterval: nil,
            clock: clock,
            logger: Logger(label: "test") { _ in logs }
        )
    }

    func emitted() async -> [WirelessObservation] {
        source.continuation.finish()
        var observations: [WirelessObservation] = []
        for await event in source.events {
            if case .wireless(let observation) = event { observations.append(observation) }
        }
        return observations
    }
}

@Suite struct WirelessDiscoverySourceTests {
    @Test func atStartTheStationsAndTheirScanResultsAreReported() async throws {
        let harness = Harness()
        harness.kernel.interfaceList.withLockedValue {
            $0 = [
                station(3, "wlan1"), station(2, "wlan0", ssid: "home"),
                Nl80211Interface(index: 4, name: "wlan2", type: .accessPoint, ssid: nil, frequency: 2412, isUp: true),
            ]
        }
        harness.kernel.results.withLockedValue {
            $0 = [2: [bss(1, ssid: "home", associated: true), bss(2, ssid: "cafe")]]
        }
        harness.source.setBrowsing(true)
        harness.source.handle(.subscribed)
        let observations = await harness.emitted()
        let connection = WirelessConnection(bssid: "02:00:00:00:01:00", ssid: "home", frequency: 2437)
        #expect(observations.count == 3)
        #expect(
            observations.first
                == .interfaces([
                    WirelessInterface(name: "wlan0", isUp: true, connection: connection),
                    WirelessInterface(name: "wlan1", isUp: true, connection: nil),
                ])
        )
        guard case .scanResults("wlan0", let points) = observations[1] else {
            Issue.record("expected wlan0's scan results, got \(observations[1])")
            return
        }
        #expect(points.map(\.ssid) == ["home", "cafe"])
        #expect(points.map(\.security) == [.wpa2Personal, .wpa2Personal])
        #expect(points.map(\.signal) == [-46, -46])
        #expect(points.map(\.isConnected) == [true, false])
        #expect(observations[2] == .scanResults(interface: "wlan1", accessPoints: []))
    }

    @Test func theInterfacesFilterLeavesTheOthersOut() async {
        let harness = Harness(interfaces: ["wlan1"])
        harness.kernel.interfaceList.withLockedValue { $0 = [station(2, "wlan0"), station(3, "wlan1")] }
        harness.source.setBrowsing(true)
        harness.source.handle(.subscribed)
        harness.source.handle(.scanFinished(interfaceIndex: 2))  // wlan0: not followed
        let observations = await harness.emitted()
        #expect(
            observations == [
                .interfaces([WirelessInterface(name: "wlan1", isUp: true, connection: nil)]),
                .scanResults(interface: "wlan1", accessPoints: []),
            ]
        )
    }

    @Test func interfacesAreReportedOnlyWhenTheyChange() async {
        let harness = Harness()
        harness.kernel.interfaceList.withLockedValue { $0 = [station(2, "wlan0")] }
        harness.source.setBrowsing(true)
        harness.source.handle(.subscribed)
        harness.source.handle(.linkChanged(interfaceIndex: 2))  // nothing changed
        harness.source.handle(.linkChanged(interfaceIndex: 9))  // not a wireless interface
        harness.kernel.interfaceList.withLockedValue { $0 = [station(2, "wlan0", up: false)] }
        harness.source.handle(.linkChanged(interfaceIndex: 2))
        let observations = await harness.emitted()
        #expect(
            observations == [
                .interfaces([WirelessInterface(name: "wlan0", isUp: true, connection: nil)]),
                .scanResults(interface: "wlan0", accessPoints: []),
                .interfaces([WirelessInterface(name: "wlan0", isUp: false, connection: nil)]),
            ]
        )
    }

    @Test func aFinishedScanReportsThatInterfacesResults() async {
        let harness = Harness()
        harness.kernel.interfaceList.withLockedValue { $0 = [station(2, "wlan0"), station(3, "wlan1")] }
        harness.source.setBrowsing(true)
        harness.source.handle(.subscribed)
        harness.kernel.results.withLockedValue { $0 = [3: [bss(7, ssid: "cafe")]] }
        harness.source.handle(.scanFinished(interfaceIndex: 3))
        harness.source.handle(.scanAborted(interfaceIndex: 2))
        let observations = await harness.emitted()
        #expect(observations.count == 4)
        guard case .scanResults("wlan1", let points) = observations.last else {
            Issue.record("expected wlan1's scan results last")
            return
        }
        #expect(points.map(\.bssid) == ["02:00:00:00:07:00"])
    }

    @Test func whileNotBrowsingNothingIsReportedAndSwitchingOnReportsAFreshDump() async {
        let harness = Harness()
        harness.kernel.interfaceList.withLockedValue { $0 = [station(2, "wlan0")] }
        harness.source.handle(.subscribed)
        harness.source.handle(.scanFinished(interfaceIndex: 2))
        harness.kernel.results.withLockedValue { $0 = [2: [bss(1, ssid: "home")]] }
        harness.source.setBrowsing(true)
        harness.source.setBrowsing(true)  // already on: nothing again
        harness.source.setBrowsing(false)
        harness.source.handle(.scanFinished(interfaceIndex: 2))
        let observations = await harness.emitted()
        #expect(observations.count == 2)
        #expect(observations.first == .interfaces([WirelessInterface(name: "wlan0", isUp: true, connection: nil)]))
        if case .scanResults("wlan0", let points) = observations.last {
            #expect(points.count == 1)
        } else {
            Issue.record("expected wlan0's scan results")
        }
    }

    @Test func noWirelessInterfaceIsLoggedOnce() async {
        let harness = Harness()
        harness.source.setBrowsing(true)
        harness.source.handle(.subscribed)
        harness.source.handle(.interfacesChanged)
        let observations = await harness.emitted()
        #expect(observations == [.interfaces([])])
        let unavailable = harness.logs.entries.filter { $0.message == "wifi unavailable" }
        #expect(unavailable.count == 1)
        #expect(unavailable.first?.metadata["reason"] == "no wireless interface")
    }

    @Test func noNl80211IsLoggedAndTheSourceIdles() async throws {
        let missing = Nl80211Error("resolve family", code: .familyMissing, detail: "no nl80211 in this kernel")
        let harness = Harness(kernel: FakeKernel(runErrors: [missing]))
        harness.source.setBrowsing(true)
        let running = Task { try await harness.source.run() }
        let logged = await eventually { harness.logs.entries.contains { $0.message == "wifi unavailable" } }
        #expect(logged)
        running.cancel()
        try await running.value
        #expect(await harness.emitted().isEmpty)
    }

    @Test func aRefusedScanIsLoggedOnceAndNotTriedAgain() {
        let harness = Harness()
        harness.kernel.interfaceList.withLockedValue {
            $0 = [station(2, "wlan0"), station(3, "wlan1"), station(4, "wlan2", up: false)]
        }
        harness.source.handle(.subscribed)
        harness.source.triggerScans()
        #expect(harness.kernel.triggered.withLockedValue { $0 } == ["wlan0", "wlan1"], "the interfaces that are up")
        harness.kernel.triggerError.withLockedValue { $0 = Nl80211Error("trigger scan", interface: "wlan0", errno: 1) }
        harness.source.triggerScans()
        harness.source.triggerScans()
        let refused = harness.logs.entries.filter { $0.message == "wifi scan refused" }
        #expect(refused.count == 1)
        #expect(refused.first?.metadata["interface"] == "wlan0")
    }

    @Test func signalsRoundToTheNearestDBm() {
        let point = { (mbm: Int) in WirelessConversion.accessPoint(bss(1, ssid: "x", signal: mbm), now: .seconds(10)) }
        #expect(point(-3000).signal == -30)
        #expect(point(-3050).signal == -31)
        #expect(point(-3049).signal == -30)
        #expect(point(-3000).lastSeen == .milliseconds(9500))
    }
}

/// Polls `condition` until it holds or `within` passes.
func eventually(within: Duration = .seconds(5), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + within
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}
