// How the kernel's neighbour entries become discovery events: the translation the neighbour source makes
// between NeighbourTable and the discovery seam.

import Discovery
import NeighbourTable
import Testing

@testable import NeighbourSource

private func entry(
    _ address: String,
    state: NeighbourState,
    mac: String? = "00:00:0c:12:34:56",
    interface: String = "lan0",
    confirmedAgo: Duration? = .seconds(3)
) -> NeighbourEntry {
    NeighbourEntry(
        family: address.contains(":") ? .ipv6 : .ipv4,
        address: address,
        interfaceIndex: 2,
        interfaceName: interface,
        macAddress: mac,
        state: state,
        confirmedAgo: confirmedAgo
    )
}

@Suite struct NeighbourDiscoverySourceTests {
    @Test func anEntryKeepsItsAddressMACAndStateAndItsConfirmationBecomesATimeOnTheDaemonsClock() throws {
        let neighbour = try #require(
            NeighbourDiscoverySource.neighbour(entry("10.0.0.7", state: .reachable), now: .seconds(100))
        )
        #expect(neighbour.address == "10.0.0.7" && neighbour.interface == "lan0")
        #expect(neighbour.macAddress == "00:00:0c:12:34:56" && neighbour.state == .reachable)
        #expect(neighbour.lastConfirmed == .seconds(97))
    }

    @Test(arguments: [NeighbourState.incomplete, .stale, .delay, .probe, .failed, .permanent])
    func everyStateTheKernelResolvesInIsKept(state: NeighbourState) {
        #expect(NeighbourDiscoverySource.neighbour(entry("10.0.0.7", state: state), now: .zero) != nil)
    }

    @Test func entriesTheKernelNeverResolvesAndLoopbackAreLeftOut() {
        #expect(NeighbourDiscoverySource.neighbour(entry("224.0.0.251", state: .noARP), now: .zero) == nil)
        #expect(NeighbourDiscoverySource.neighbour(entry("10.0.0.7", state: .none), now: .zero) == nil)
        #expect(NeighbourDiscoverySource.neighbour(entry("::1", state: .reachable, interface: "lo"), now: .zero) == nil)
        #expect(
            NeighbourDiscoverySource.neighbour(entry("10.0.0.7", state: .reachable, interface: ""), now: .zero) == nil
        )
    }
}
