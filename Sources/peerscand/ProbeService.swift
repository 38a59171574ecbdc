import ActiveProbing
import Logging
import NeighbourTable
import PeerScanCore
import ServiceLifecycle

/// Active probing: every interval, while scanning is on, makes the kernel resolve every address of the directly
/// connected IPv4 subnets of the scanned interfaces and solicit every IPv6 host (all-nodes echo), and re-verifies
/// the hosts the kernel already knows, so that the neighbour table — and so presence — follows the hosts, not the
/// kernel's timers.
///
/// Re-verifying: with CAP_NET_ADMIN, each known entry is set to PROBE (as `ip neigh change … nud probe` does) and the
/// kernel asks the host at once, so a silent host's entry fails within seconds. Without it, a datagram is sent to
/// each known address: the kernel verifies an entry only once it is stale (its reachable time, 15–45 s, has passed),
/// so a host that went silent is noticed up to that much later.
struct ProbeService: Service {
    let interval: Duration
    let prober: ActiveProber
    let monitor: NeighbourMonitor
    let forcer: NeighbourProber?
    let store: SnapshotStore
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown { await rounds() }
    }

    private func rounds() async {
        var canForce = forcer != nil
        var announced = false
        while !Task.isCancelled {
            if await store.scanning {
                let interfaces = await store.hostStatus.interfaces
                let sweep = await prober.sweep(interfaces: interfaces)
                // Entries the kernel is verifying already (delay, probe) are left to it: forcing them again would
                // restart their probes.
                let known = ((try? monitor.dump()) ?? []).filter {
                    interfaces.contains($0.interfaceName) && $0.macAddress != nil
                        && [.reachable, .stale].contains($0.state)
                }
                var unforced: [String] = []
                for entry in known {
                    guard canForce, let forcer else {
                        unforced.append(entry.address)
                        continue
                    }
                    do {
                        try forcer.forceProbe(entry)
                    } catch let error as NeighbourTableError where error.isPermissionDenied {
                        canForce = false
                        logger.info(
                            "neighbour re-probe not permitted",
                            metadata: ["error": "\(error)", "fallback": "datagrams"]
                        )
                        unforced.append(entry.address)
                    } catch {
                        unforced.append(entry.address)  // gone meanwhile, say: the next round sees it again
                    }
                }
                let refresh = await prober.probe(addresses: unforced)
                if !announced {
                    announced = true
                    logger.info(
                        "probing",
                        metadata: [
                            "interval": "\(interval)",
                            "interfaces": "\(interfaces.joined(separator: ","))",
                            "addresses": "\(sweep.datagramsSent)",
                            "reverify": "\(canForce ? "forced" : "traffic")",
                            "ipv6": "\(prober.solicitation)",
                        ]
                    )
                }
                logger.debug(
                    "probe round",
                    metadata: [
                        "swept": "\(sweep.datagramsSent)", "failures": "\(sweep.failures + refresh.failures)",
                        "known": "\(known.count)", "forced": "\(known.count - unforced.count)",
                    ]
                )
            }
            try? await Task.sleep(for: interval)
        }
    }
}
