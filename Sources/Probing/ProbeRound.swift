import Logging
import NeighbourTable
import NetworkInterfaces

/// The decisions of one probe round, as a value: which of the neighbours the kernel knows are re-verified, whether by
/// a forced probe or by a datagram, and what the round reports. ``ProbeService`` carries them out (sockets, netlink)
/// and feeds back the forced probes that failed; nothing here does I/O.
///
/// A round re-verifies the entries that are resolved (they have a MAC address), on a scanned interface, and
/// `reachable` or `stale`. Entries the kernel is verifying already (`delay`, `probe`) are left to it: forcing them
/// again would restart their probes. While forcing is permitted each entry is forced (set to PROBE: the kernel asks
/// the host at once); otherwise it gets a datagram (the kernel asks once the entry is stale).
struct ProbeRound: Sendable, Equatable {
    /// The scanned interfaces the round covers.
    let interfaces: [String]
    /// The entries the round re-verifies, in the order of the kernel's table.
    let known: [NeighbourEntry]
    /// The entries forced to PROBE, or to be: all of ``known`` while forcing is permitted, less those whose forced
    /// probe failed.
    private(set) var forcedEntries: [NeighbourEntry]
    /// The addresses that get a datagram instead of a forced probe.
    private(set) var datagramAddresses: [String]
    /// Whether forced probes are permitted: false from the start without a netlink socket, or once the kernel refused
    /// one (no CAP_NET_ADMIN). The next round starts from it.
    private(set) var canForce: Bool

    /// Decides a round.
    ///
    /// - Parameters:
    ///   - entries: The kernel's neighbour table now.
    ///   - interfaces: The scanned interfaces.
    ///   - canForce: Whether forced probes are permitted (what the previous round ended with).
    /// - Returns: The round, before any forced probe is tried.
    /// - Complexity: O(n × i) for n entries and i interfaces.
    static func plan(entries: [NeighbourEntry], interfaces: [String], canForce: Bool) -> ProbeRound {
        let known = entries.filter {
            interfaces.contains($0.interfaceName) && $0.macAddress != nil && [.reachable, .stale].contains($0.state)
        }
        return ProbeRound(
            interfaces: interfaces,
            known: known,
            forcedEntries: canForce ? known : [],
            datagramAddresses: canForce ? [] : known.map(\.address),
            canForce: canForce
        )
    }

    /// Records that the forced probe of `entry`, one of ``forcedEntries``, failed.
    ///
    /// A refusal (no CAP_NET_ADMIN) switches forcing off: `entry` and the entries after it, not tried yet, get a
    /// datagram instead, and so does every entry of the rounds that follow. Any other failure (the entry is gone
    /// meanwhile, say) sends `entry` a datagram; the next round sees it again.
    ///
    /// - Parameters:
    ///   - entry: The entry whose forced probe failed; an entry not in ``forcedEntries`` is ignored.
    ///   - refused: Whether the kernel refused for lack of privilege.
    /// - Complexity: O(n) for n entries in the round.
    mutating func forceFailed(_ entry: NeighbourEntry, refused: Bool) {
        guard let index = forcedEntries.firstIndex(of: entry) else { return }
        if refused {
            canForce = false
            datagramAddresses += forcedEntries[index...].map(\.address)
            forcedEntries.removeSubrange(index...)
        } else {
            forcedEntries.remove(at: index)
            datagramAddresses.append(entry.address)
        }
    }

    /// The metadata of the `probe round` debug line, once the round is done.
    ///
    /// - Parameters:
    ///   - sweep: What the sweep of the subnets sent.
    ///   - datagrams: What the datagrams to ``datagramAddresses`` sent.
    /// - Returns: `swept` (datagrams of the sweep), `failures` (datagrams the kernel refused, sweep and re-verification
    ///   together), `enobufs` (of the others, those it had no room for: ``ProbeTraffic/noRoom``, both protocols),
    ///   `known` (entries re-verified), `forced` (of them, by a forced probe).
    func report(sweep: ProbeTraffic, datagrams: ProbeTraffic) -> Logger.Metadata {
        let noRoom = Self.noRoom(sweep: sweep, datagrams: datagrams).values.reduce(0, +)
        return [
            "swept": "\(sweep.datagramsSent)", "failures": "\(sweep.failures + datagrams.failures)",
            "enobufs": "\(noRoom)", "known": "\(known.count)", "forced": "\(forcedEntries.count)",
        ]
    }

    /// The datagrams of a round (its sweep and its re-verification) the kernel had no room for, by protocol; a
    /// protocol with none is absent.
    static func noRoom(sweep: ProbeTraffic, datagrams: ProbeTraffic) -> [IPProtocol: Int] {
        sweep.noRoom.merging(datagrams.noRoom, uniquingKeysWith: +).filter { $0.value > 0 }
    }

    /// The metadata of the `probing` info line, logged after the first round.
    ///
    /// - Parameters:
    ///   - interval: The time between rounds.
    ///   - sweep: What the sweep of the subnets sent.
    ///   - solicitation: How IPv6 hosts are solicited.
    /// - Returns: `interval`, `interfaces` (comma-separated), `addresses` (datagrams of a sweep), `reverify` (`forced`
    ///   or `traffic`), `ipv6` (the solicitation).
    func announcement(interval: Duration, sweep: ProbeTraffic, solicitation: IPv6Solicitation) -> Logger.Metadata {
        [
            "interval": "\(interval)",
            "interfaces": "\(interfaces.joined(separator: ","))",
            "addresses": "\(sweep.datagramsSent)",
            "reverify": "\(canForce ? "forced" : "traffic")",
            "ipv6": "\(solicitation)",
        ]
    }
}
