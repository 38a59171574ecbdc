// What the Wi-Fi source does when the kernel misbehaves or changes under it: an interface index its dump repeats.

import Discovery
import Nl80211
import PeerScanModel
import Testing

@testable import WirelessSource

@Suite struct WirelessKernelChangeTests {
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
