import Foundation
import TestSupport
import Testing

@testable import Probing

@Suite("A probe round on a real link, in namespaces of the test's own", .serialized, .timeLimit(.minutes(1)))
struct ActiveProberTests {
    @Test func aSweepMakesTheKernelResolveTheHostAndFailTheAbsent() async throws {
        let link = try NamespaceLink()
        let prober = try ActiveProber(namespacePath: link.nearPath)
        var pacer = ProbePacer(rate: ProbeService.defaultRate)
        #expect(prober.subnets(of: ["near0"]).map(\.prefixLength) == [24])
        let round = await prober.sweep(interfaces: ["near0"], pacer: &pacer)
        #expect(round.datagramsSent == 253)
        let mac = try link.farMAC()
        var resolved = false
        for _ in 0..<40 where !resolved {
            try await Task.sleep(for: .milliseconds(100))
            resolved = try runCommand("ip", "-n", link.near, "neigh", "show", "10.9.0.2").contains(mac)
        }
        #expect(resolved, "the far host answered the kernel's ARP")
        let absent = try runCommand("ip", "-n", link.near, "neigh", "show", "10.9.0.77")
        #expect(absent.contains("INCOMPLETE") || absent.contains("FAILED"))
    }

    @Test func aHostThatDropsTheDatagramsIsFoundAllTheSame() async throws {
        let link = try NamespaceLink()
        try runCommand(
            "ip",
            "netns",
            "exec",
            link.far,
            "nft",
            "add table inet t; add chain inet t in { type filter hook input "
                + "priority 0; policy drop; }"
        )
        let prober = try ActiveProber(namespacePath: link.nearPath)
        var pacer = ProbePacer(rate: ProbeService.defaultRate)
        _ = await prober.sweep(interfaces: ["near0"], pacer: &pacer)
        try await Task.sleep(for: .milliseconds(500))
        #expect(try runCommand("ip", "-n", link.near, "neigh", "show", "10.9.0.2").contains(try link.farMAC()))
    }

    @Test func theAllNodesEchoMakesAnIPv6HostKnown() async throws {
        let link = try NamespaceLink()
        try runCommand("ip", "netns", "exec", link.near, "sysctl", "-qw", "net.ipv4.ping_group_range=0 2147483647")
        let prober = try ActiveProber(namespacePath: link.nearPath)
        var pacer = ProbePacer(rate: ProbeService.defaultRate)
        #expect(prober.solicitation == .pingSocket)
        let round = await prober.sweep(interfaces: ["near0"], pacer: &pacer)
        #expect(round.echoRequestsSent == 2, "from the link-local address and from the global one")
        let mac = try link.farMAC()
        var known: [String] = []
        for _ in 0..<40 where known.count < 2 {
            try await Task.sleep(for: .milliseconds(100))
            known = try runCommand("ip", "-n", link.near, "-6", "neigh", "show", "dev", "near0")
                .split(separator: "\n").filter { $0.contains(mac) }.map { String($0.split(separator: " ")[0]) }
        }
        // The far host solicited our MAC address to answer each echo, and the kernel noted its own.
        #expect(known.contains("fd09::2"), "its global address, answering the echo from ours")
        #expect(known.contains { $0.hasPrefix("fe80:") }, "its link-local address")
    }

    @Test func withoutThePingGroupRootFallsBackToARawSocket() throws {
        let link = try NamespaceLink()  // a fresh namespace: ping_group_range is "1 0", nobody
        let prober = try ActiveProber(namespacePath: link.nearPath)
        #expect(prober.solicitation == (getuid() == 0 ? .rawSocket : .unavailable))
    }

    @Test func knownAddressesGetADatagramEach() async throws {
        let link = try NamespaceLink()
        let prober = try ActiveProber(namespacePath: link.nearPath)
        var pacer = ProbePacer(rate: ProbeService.defaultRate)
        let round = await prober.probe(addresses: ["10.9.0.2", "fd09::2", "not an address"], pacer: &pacer)
        #expect(round.datagramsSent == 2)
        try await Task.sleep(for: .milliseconds(500))
        #expect(try runCommand("ip", "-n", link.near, "-6", "neigh", "show", "fd09::2").contains(try link.farMAC()))
    }

    /// UDP hides ENOBUFS unless IP_RECVERR is on. A full neighbour table (gc_thresh3) is global to the machine and
    /// cannot be made in a test; a device queue that takes nothing fails a send with the same ENOBUFS.
    @Test func aDatagramTheKernelHasNoRoomForIsCountedApart() async throws {
        let link = try NamespaceLink()
        try runCommand(
            "ip",
            "-n",
            link.near,
            "neigh",
            "replace",
            "10.9.0.2",
            "lladdr",
            try link.farMAC(),
            "dev",
            "near0",
            "nud",
            "permanent"
        )
        try runCommand(
            "ip",
            "netns",
            "exec",
            link.near,
            "tc",
            "qdisc",
            "add",
            "dev",
            "near0",
            "root",
            "pfifo",
            "limit",
            "0"
        )
        let prober = try ActiveProber(namespacePath: link.nearPath)
        var pacer = ProbePacer(rate: ProbeService.defaultRate)
        let round = await prober.probe(addresses: ["10.9.0.2"], pacer: &pacer)
        #expect(round.noRoom == [.ipv4: 1])
        #expect(round.datagramsSent == 0 && round.failures == 0)
    }

    /// With IP_RECVERR, the far host's port unreachable for one datagram fails the next `sendto`, which sent nothing:
    /// the prober sends that datagram again. Four datagrams 20 ms apart: each one's ICMP error (the far host's burst
    /// allows six) is pending when the next is sent.
    @Test func anEarlierDatagramsErrorDoesNotCostTheNextOne() async throws {
        let link = try NamespaceLink()
        let prober = try ActiveProber(namespacePath: link.nearPath)
        var pacer = ProbePacer(rate: 50)
        let round = await prober.probe(addresses: Array(repeating: "10.9.0.2", count: 4), pacer: &pacer)
        #expect(round.datagramsSent == 4 && round.failures == 0 && round.noRoom.isEmpty)
    }
}
