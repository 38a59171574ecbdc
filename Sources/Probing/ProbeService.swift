import Logging
import MonitoringLog
import NeighbourTable
import ServiceLifecycle

/// Active probing, the module's one entry point: every interval, while there is something to scan, makes the kernel
/// resolve every address of the directly connected IPv4 subnets of the scanned interfaces and solicit every IPv6 host
/// (all-nodes echo), and re-verifies the hosts the kernel already knows, so that the neighbour table — and so
/// presence — follows the hosts, not the kernel's timers.
///
/// Re-verifying: with CAP_NET_ADMIN, each known entry is set to PROBE (as `ip neigh change … nud probe` does) and the
/// kernel asks the host at once, so a silent host's entry fails within seconds. Without it, a datagram is sent to
/// each known address: the kernel verifies an entry only once it is stale (its reachable time, 15–45 s, has passed),
/// so a host that went silent is noticed up to that much later. ``ProbeRound`` holds the decisions; this service
/// does the I/O.
///
/// Logs `probing` (info) after the first round, `neighbour re-probe not permitted` (info) the first time the kernel
/// refuses a forced probe, and `probe round` (debug) after every round.
public struct ProbeService: Service {
    private let interval: Duration
    private let scope: @Sendable () async -> [String]?
    private let logger: Logger
    private let prober: ActiveProber
    private let neighbours: NeighbourMonitor
    private let forcer: NeighbourProber?

    /// Opens the sockets probing needs, in the network namespace at `namespacePath` if given (for tests and tools).
    ///
    /// Without a netlink socket for forced probes, known hosts are re-verified by datagrams, as when the kernel
    /// refuses a forced probe (the `probing` line says `reverify=traffic`).
    ///
    /// - Parameters:
    ///   - interval: The pause after a round (or after finding scanning off) before the next.
    ///   - scope: The interfaces to probe now (the scanned ones), or `nil` while scanning is off (no round then);
    ///     asked before each round.
    ///   - logger: Where rounds are reported.
    ///   - namespacePath: A network namespace's file, e.g. `/run/netns/x`; `nil` for the process's own.
    /// - Throws: ``ProbeError`` if no UDP socket can be opened (or the namespace cannot be entered).
    public init(
        interval: Duration,
        scope: @escaping @Sendable () async -> [String]?,
        logger: Logger,
        namespacePath: String? = nil
    ) throws(ProbeError) {
        self.interval = interval
        self.scope = scope
        self.logger = logger
        prober = try ActiveProber(namespacePath: namespacePath)
        neighbours = NeighbourMonitor(namespacePath: namespacePath, logger: logger)  // for its dump only
        do {
            forcer = try NeighbourProber(namespacePath: namespacePath)
        } catch {
            forcer = nil  // re-verified by datagrams, and said so in the `probing` line (see above)
        }
    }

    /// Runs rounds until the task is cancelled or the service group shuts down.
    public func run() async throws {
        await cancelWhenGracefulShutdown { await rounds() }
    }

    private func rounds() async {
        var canForce = forcer != nil
        var announces = true
        while !Task.isCancelled {
            if let interfaces = await scope() {
                canForce = await round(on: interfaces, canForce: canForce, announces: announces)
                announces = false
            }
            do { try await Task.sleep(for: interval) } catch { return }  // cancelled: shutting down
        }
    }

    /// One round: the sweep, then the re-verification of the entries the kernel knows.
    /// - Returns: Whether forced probes are still permitted.
    private func round(on interfaces: [String], canForce: Bool, announces: Bool) async -> Bool {
        let sweep = await prober.sweep(interfaces: interfaces)
        let entries: [NeighbourEntry]
        var dumpError: (any Error)?
        do {
            entries = try neighbours.dump()
        } catch {
            entries = []  // nothing to re-verify this round; said in the `probe round` line
            dumpError = error
        }
        var round = ProbeRound.plan(entries: entries, interfaces: interfaces, canForce: canForce)
        if let forcer {
            for entry in round.forcedEntries {
                guard round.canForce else { break }
                do {
                    try forcer.forceProbe(entry)
                } catch let error as NeighbourTableError where error.isPermissionDenied {
                    round.forceFailed(entry, refused: true)
                    logger.log(
                        .neighbourReprobeNotPermitted,
                        ["error": "\(error)", "fallback": "datagrams"]
                    )
                } catch {
                    round.forceFailed(entry, refused: false)  // gone meanwhile, say: the next round sees it again
                }
            }
        }
        let datagrams = await prober.probe(addresses: round.datagramAddresses)
        if announces {
            logger.log(
                .probing,
                round.announcement(interval: interval, sweep: sweep, solicitation: prober.solicitation)
            )
        }
        var report = round.report(sweep: sweep, datagrams: datagrams)
        if let dumpError { report["error"] = "\(dumpError)" }
        logger.log(.probeRound, report)
        return round.canForce
    }
}
