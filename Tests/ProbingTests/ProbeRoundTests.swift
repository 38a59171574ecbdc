import NeighbourTable
import Testing

@testable import Probing

private func entry(
    _ address: String,
    on interface: String = "lan0",
    mac: String? = "02:00:00:00:00:01",
    _ state: NeighbourState = .reachable
) -> NeighbourEntry {
    NeighbourEntry(
        family: address.contains(":") ? .ipv6 : .ipv4,
        address: address,
        interfaceIndex: interface == "lan0" ? 2 : 3,
        interfaceName: interface,
        macAddress: mac,
        state: state
    )
}

@Suite("Which neighbours a probe round re-verifies, and how")
struct ProbeRoundPlanTests {
    @Test func onlyResolvedReachableOrStaleEntriesOnScannedInterfacesAreReverified() {
        let reachable = entry("10.0.0.2")
        let stale = entry("fd00::3", .stale)
        let entries = [
            entry("10.0.0.1", on: "wlan0"),  // not scanned
            reachable,
            entry("10.0.0.4", mac: nil, .incomplete),
            entry("10.0.0.5", .delay),  // the kernel is verifying it already
            entry("10.0.0.6", .probe),
            entry("10.0.0.7", mac: nil, .failed),
            entry("10.0.0.8", .permanent),
            entry("10.0.0.9", mac: nil, .stale),  // a MAC address that is not 6 bytes long
            stale,
        ]
        let round = ProbeRound.plan(entries: entries, interfaces: ["lan0"], canForce: true)
        #expect(round.known == [reachable, stale])
        #expect(round.forcedEntries == [reachable, stale])
        #expect(round.datagramAddresses.isEmpty)
        #expect(round.canForce)
    }

    @Test func withoutForcingEveryKnownAddressGetsADatagram() {
        let entries = [entry("10.0.0.2"), entry("fe80::2%lan0", .stale), entry("10.1.0.2", on: "lan1")]
        let round = ProbeRound.plan(entries: entries, interfaces: ["lan0", "lan1"], canForce: false)
        #expect(round.forcedEntries.isEmpty)
        #expect(round.datagramAddresses == ["10.0.0.2", "fe80::2%lan0", "10.1.0.2"])
        #expect(!round.canForce)
    }

    @Test func noScannedInterfaceMeansNothingToReverify() {
        let round = ProbeRound.plan(entries: [entry("10.0.0.2")], interfaces: [], canForce: true)
        #expect(round.known.isEmpty && round.forcedEntries.isEmpty && round.datagramAddresses.isEmpty)
    }
}

@Suite("What a probe round does when a forced probe fails")
struct ProbeRoundFailureTests {
    private let entries = (1...4).map { entry("10.0.0.\($0)") }

    @Test func aRefusalSendsTheRefusedAndTheUntriedEntriesDatagramsAndSwitchesForcingOff() {
        var round = ProbeRound.plan(entries: entries, interfaces: ["lan0"], canForce: true)
        round.forceFailed(entries[1], refused: true)
        #expect(round.forcedEntries == [entries[0]])
        #expect(round.datagramAddresses == ["10.0.0.2", "10.0.0.3", "10.0.0.4"])
        #expect(!round.canForce)
    }

    @Test func anEntryGoneMeanwhileGetsADatagramAndForcingGoesOn() {
        var round = ProbeRound.plan(entries: entries, interfaces: ["lan0"], canForce: true)
        round.forceFailed(entries[2], refused: false)
        #expect(round.forcedEntries == [entries[0], entries[1], entries[3]])
        #expect(round.datagramAddresses == ["10.0.0.3"])
        #expect(round.canForce)
    }

    @Test func aFailureOfAnEntryNotInTheRoundChangesNothing() {
        let planned = ProbeRound.plan(entries: entries, interfaces: ["lan0"], canForce: true)
        var round = planned
        round.forceFailed(entry("10.0.0.99"), refused: true)
        #expect(round == planned)
    }

    /// Every refusal point, after every set of earlier failures: each known address is re-verified exactly once,
    /// by a forced probe or by a datagram, and the forced ones keep the table's order.
    @Test(arguments: 0..<6)
    func everyKnownAddressIsReverifiedOnceWhateverFails(refusedAt refusal: Int) {
        let entries = (1...6).map { entry("10.0.0.\($0)") }
        for goneMask in 0..<(1 << refusal) {
            var round = ProbeRound.plan(entries: entries, interfaces: ["lan0"], canForce: true)
            for (index, gone) in entries.enumerated().prefix(refusal) where goneMask & (1 << index) != 0 {
                round.forceFailed(gone, refused: false)
            }
            round.forceFailed(entries[refusal], refused: true)
            let forced = round.forcedEntries.map(\.address)
            #expect((forced + round.datagramAddresses).sorted() == entries.map(\.address).sorted())
            #expect(forced == entries.prefix(refusal).map(\.address).filter { !round.datagramAddresses.contains($0) })
            #expect(round.forcedEntries.count == refusal - goneMask.nonzeroBitCount)
            #expect(!round.canForce)
        }
    }
}

@Suite("What a probe round reports")
struct ProbeRoundReportTests {
    @Test func theRoundLineCountsTheSweepTheFailuresAndTheForcedProbes() {
        let entries = [entry("10.0.0.2"), entry("10.0.0.3"), entry("10.0.0.4")]
        var round = ProbeRound.plan(entries: entries, interfaces: ["lan0"], canForce: true)
        round.forceFailed(entries[1], refused: false)
        let report = round.report(
            sweep: ProbeTraffic(datagramsSent: 253, failures: 7, echoRequestsSent: 2),
            datagrams: ProbeTraffic(datagramsSent: 1, failures: 1)
        )
        #expect(report == ["swept": "253", "failures": "8", "enobufs": "0", "known": "3", "forced": "2"])
    }

    @Test func datagramsTheKernelHadNoRoomForAreCountedApartAndByProtocol() {
        let round = ProbeRound.plan(entries: [entry("10.0.0.2")], interfaces: ["lan0"], canForce: true)
        let sweep = ProbeTraffic(datagramsSent: 1000, failures: 1, noRoom: [.ipv4: 21])
        let datagrams = ProbeTraffic(datagramsSent: 3, noRoom: [.ipv4: 2, .ipv6: 1])
        #expect(round.report(sweep: sweep, datagrams: datagrams)["enobufs"] == "24")
        #expect(round.report(sweep: sweep, datagrams: datagrams)["failures"] == "1")
        #expect(ProbeRound.noRoom(sweep: sweep, datagrams: datagrams) == [.ipv4: 23, .ipv6: 1])
        #expect(ProbeRound.noRoom(sweep: ProbeTraffic(noRoom: [.ipv6: 0]), datagrams: ProbeTraffic()).isEmpty)
    }

    @Test func theFirstRoundsLineSaysHowHostsAreReverifiedAndSolicited() {
        var round = ProbeRound.plan(entries: [entry("10.0.0.2")], interfaces: ["lan0", "lan1"], canForce: true)
        let sweep = ProbeTraffic(datagramsSent: 506)
        let forced = round.announcement(interval: .seconds(30), sweep: sweep, solicitation: .pingSocket)
        #expect(
            forced == [
                "interval": "30.0 seconds", "interfaces": "lan0,lan1", "addresses": "506", "reverify": "forced",
                "ipv6": "ping-socket",
            ]
        )
        round.forceFailed(entry("10.0.0.2"), refused: true)
        let refused = round.announcement(interval: .seconds(30), sweep: sweep, solicitation: .unavailable)
        #expect(refused["reverify"] == "traffic" && refused["ipv6"] == "unavailable")
    }
}
