// What the Wi-Fi source does when the kernel misbehaves or changes under it: nl80211 missing at start and loaded
// later, an interface index its dump repeats.

import Discovery
import Nl80211
import PeerScanModel
import TestSupport
import Testing

@testable import WirelessSource

@Suite struct WirelessKernelChangeTests {
    @Test(.timeLimit(.minutes(1)))
    func `without nl80211 the source tries again with a backoff and says when nl80211 appears`() async throws {
        let missing = Nl80211Error("resolve family", code: .familyMissing, detail: "no nl80211 in this kernel")
        let clock = ManualClock()
        let harness = Harness(kernel: FakeKernel(runErrors: [missing, missing, missing]), clock: ScanClock(clock))
        harness.kernel.interfaceList.withLockedValue { $0 = [station(2, "wlan0")] }
        harness.source.setBrowsing(true)
        let running = Task { try await harness.source.run() }
        let runs = { harness.kernel.runs.withLockedValue { $0 } }
        var delay = WirelessDiscoverySource.retryDelays.first
        #expect(delay == .seconds(5))
        for failed in 1...3 {
            #expect(await eventually { runs() == failed && clock.sleeperCount == 1 }, "run \(failed) failed, waits")
            clock.advance(by: delay - .seconds(1))
            #expect(runs() == failed && clock.sleeperCount == 1, "still waiting after \(delay - .seconds(1))")
            clock.advance(by: .seconds(1))
            delay *= 2
        }
        #expect(await eventually { harness.logs.entries.contains { $0.message == "wifi available" } })
        #expect(runs() == 4)
        running.cancel()
        try await running.value
        #expect(harness.logs.entries.filter { $0.message == "wifi unavailable" }.count == 1, "logged once")
        let observations = await harness.emitted()
        #expect(observations.first == .interfaces([WirelessInterface(name: "wlan0", isUp: true, connection: nil)]))
    }

    @Test func `the backoff doubles up to its last delay`() {
        let delays = WirelessDiscoverySource.retryDelays
        #expect(delays.first < delays.last)
        #expect(delays.last == .seconds(60))
    }

    @Test func `a repeated interface index is logged once while it repeats, and its second interface skipped`() async {
        let harness = Harness()
        let repeating = [station(2, "wlan1"), station(2, "wlan0"), station(3, "wlan2")]
        harness.kernel.interfaceList.withLockedValue { $0 = repeating }
        harness.source.setBrowsing(true)
        harness.source.handle(.subscribed)
        harness.source.handle(.interfacesChanged)
        harness.source.handle(.scanFinished(interfaceIndex: 2))
        harness.kernel.interfaceList.withLockedValue { $0 = [station(2, "wlan0"), station(3, "wlan2")] }
        harness.source.handle(.interfacesChanged)
        harness.kernel.interfaceList.withLockedValue { $0 = repeating }
        harness.source.handle(.interfacesChanged)  // repeats again: logged again
        let observations = await harness.emitted()
        #expect(
            observations.first
                == .interfaces([
                    WirelessInterface(name: "wlan0", isUp: true, connection: nil),
                    WirelessInterface(name: "wlan2", isUp: true, connection: nil),
                ])
        )
        #expect(!observations.contains(.scanResults(interface: "wlan1", accessPoints: [])), "wlan1 skipped")
        let repeated = harness.logs.entries.filter { $0.message == "wifi interface repeated" }
        #expect(repeated.count == 2)
        #expect(repeated.first?.metadata["index"] == "2")
        #expect(repeated.first?.metadata["interface"] == "wlan1")
        #expect(repeated.first?.metadata["interface.kept"] == "wlan0")
    }
}
