// The options of scanning and presence: resyncs, settling, the startup wait, probing, when devices go offline and are
// forgotten, and the neighbour table.

import ArgumentParser

/// The options that shape what is scanned and how presence is judged. Declared at their place among peerscand's
/// options (an untitled `@OptionGroup`), so that `--help` and the manual list them as before.
struct ScanningOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Seconds to keep devices not seen again after avahi-daemon restarts, unless Avahi reports it is done first.",
            discussion: """
                Addresses Avahi withdraws in that time (it flushes records while it refills its cache) are kept \
                unless they are not reported again within six periods (a restarted avahi-daemon takes a while to ask \
                every host of a large LAN again, and their records come back piecemeal). Likewise for an interface whose link goes down (Avahi \
                withdraws everything learnt there): what was learnt on it is kept for this long after the link is \
                back, or after it went down if it stays down, and only what Avahi does not report again goes.
                """
        )
    )
    var resyncGrace: Double = 10

    @Option(
        help: ArgumentHelp(
            "The longest a device is held back while it settles, in seconds; 0 publishes every piece at once.",
            discussion: """
                mDNS reports a device in pieces: one row per interface and IP protocol, each resolved on its own. A \
                new device is published once the rows of its services that are still resolving have resolved, and a \
                withdrawn service (or a device that leaves) goes in one change once all its rows, and those of the \
                other services of the same instance name, are gone, so that one event on the network is one \
                changeset. Nothing is held that is not waiting on such a row, and nothing longer than this.
                """
        )
    )
    var settleWindow: Double = 0.1

    @Option(
        help: ArgumentHelp(
            "The longest clients wait for their first snapshot after start, in seconds; 0 serves at once.",
            discussion: """
                A freshly started peerscand knows no device yet. Until the first browse has settled (Avahi reported \
                all it knows, every service found is resolved, nothing new was found for a second; without Avahi, \
                the neighbour table's answers were quiet for a second) or this time has passed, GetSnapshot and \
                Monitor wait, and READY=1 is not sent, so that no client sees a snapshot \
                that lacks devices merely not rediscovered yet (after a restart, a watcher would print them as gone \
                and back). On a large LAN raise it: Avahi took ~35 s to resolve 2,300 services.
                """
        )
    )
    var startupSettle: Double = 5

    @Option(
        help: ArgumentHelp(
            "Seconds between probe rounds; 0 switches active probing off.",
            discussion: """
                Each round sends one UDP datagram (port 9, discard) to every address of the directly connected IPv4 \
                subnets of the scanned interfaces — at most the 1,024 addresses of the /22 around this host's \
                address, the kernel's neighbour table holding 1,024 entries by default — so that the kernel resolves \
                them (ARP), and an ICMPv6 echo request to the all-nodes group (ff02::1) of each interface, whose \
                answers make every IPv6 host known (NDP). Then it re-verifies every host the kernel knows: with \
                CAP_NET_ADMIN by setting its entry to PROBE (the kernel asks it at once), else by sending it a \
                datagram (the kernel asks once the entry is stale). Needs no privilege; the IPv6 echo needs the \
                group in net.ipv4.ping_group_range (systemd allows every group), or CAP_NET_RAW. A round also \
                starts when scanning is switched on, at most one every 5 s (see --probe-rate).
                """
        )
    )
    var probeInterval: Double = 30

    @Option(
        help: ArgumentHelp(
            "The most datagrams a second active probing sends.",
            discussion: """
                Every datagram of a probe round counts — the sweep's, the all-nodes echoes, the re-verifications and \
                forced re-probes — whatever clients do: a round asked for by switching scanning on starts at once, \
                but never within 5 s of the last one (or within --probe-interval, if shorter); asks within that \
                time are served by one round at its end. The default, 500, is about arp-scan's (its --bandwidth of \
                256,000 bit/s): a /24 is swept in half a second, a /22 in about two. The kernel sends up to three \
                ARP requests, a second apart, for each address that does not answer, so the ARP frames of a sweep \
                of silent addresses reach up to three times this rate.
                """,
            valueName: "per-second"
        )
    )
    var probeRate: Int = 500

    @Option(
        help: ArgumentHelp(
            "Seconds after a device last answered that it is shown offline.",
            discussion: """
                A device answers while the kernel reaches it (its neighbour entry is reachable, or was confirmed \
                within this time); Avahi's cached mDNS records do not count, but before concluding, an mDNS host \
                whose entries failed is asked once (a one-shot mDNS query for its host name) and counts as answering \
                if it replies. A device the kernel never resolved answers while it has mDNS records. One failed \
                probe round does not make it offline; it is offline once it has not answered for this long, and \
                online again as soon as it answers. 0 removes devices as soon as they stop answering (with \
                --forget-after 0).
                """
        )
    )
    var offlineAfter: Double = 60

    @Option(
        help: ArgumentHelp(
            "Seconds after a device last answered that it is forgotten; at least --offline-after.",
            discussion: """
                A forgotten device leaves the list and the registry, with its history: if it comes back, it is a \
                new device. 0 forgets a device as soon as it stops answering (nothing is remembered). Wi-Fi networks \
                and access points not heard for this long leave the registry too (sooner past the most it keeps: see \
                --wifi-networks-max), except the networks this host connected to and those trusted (peerscanctl \
                wifi trust); with 0 no network heard is written.
                """
        )
    )
    var forgetAfter: Double = 7 * 24 * 3600

    @Flag(
        inversion: .prefixedNo,
        help: "Follow the kernel's neighbour table (ARP, NDP): devices that do not speak mDNS, MAC addresses, presence."
    )
    var neighbourTable = true

    /// How long an entry that turned stale from answering counts as answering (``DeviceTable/Presence/staleGrace``):
    /// one probe round, then the kernel's delay (5 s) and three probes a second apart, and a second to spare; zero
    /// without probing (nothing would verify it).
    var staleGrace: Duration {
        guard neighbourTable, probeInterval > 0 else { return .zero }
        return .seconds(probeInterval) + .seconds(9)
    }
}
