import Logging
import MonitoringLog
import NeighbourTable
import NetworkInterfaces
import ServiceLifecycle
import Synchronization

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
/// A bounded footprint, whatever clients do: a round asked for (``askForRound()``, when scanning is switched on)
/// starts at once, but never within the floor of the last one (``ProbeSchedule``: 5 s, or the interval if shorter);
/// asks within it are coalesced into one round at its end. Every datagram, echo request and forced probe takes a
/// token of one bucket (``ProbePacer``), so the prober never sends more than `rate` a second.
///
/// Logs `probing` (info) after the first round, `neighbour re-probe not permitted` (info) the first time the kernel
/// refuses a forced probe, and `probe round` (debug) after every round. Datagrams the kernel had no room for
/// (`ENOBUFS`: the neighbour table at `gc_thresh3`, see ``ProbeSendFailure``) go to `noRoom`, by protocol (and to
/// `enobufs` in the `probe round` line), after every round (an empty count says the table had room again).
public struct ProbeService: Service {
    /// The default ceiling, in datagrams per second: about arp-scan's default (`--bandwidth` 256,000 bit/s of
    /// 64-byte frames, 500 a second), so a /24 is swept in half a second and a /22 in about two.
    public static let defaultRate = 500
    /// The default floor: the least time between the starts of two rounds, however they are asked for.
    public static let defaultFloor: Duration = .seconds(5)

    private let interval: Duration
    private let floor: Duration
    private let rate: Int
    private let scope: @Sendable () async -> [String]?
    private let noRoom: @Sendable ([IPProtocol: Int]) async -> Void
    private let logger: Logger
    private let prober: ActiveProber
    private let neighbours: NeighbourMonitor
    private let forcer: NeighbourProber?
    private let asks = RoundAsks()
    private let durations = RoundDurationsBox()

    /// How long the rounds since start took.
    public var roundDurations: RoundDurations { durations.current }

    /// Opens the sockets probing needs, in the network namespace at `namespacePath` if given (for tests and tools).
    ///
    /// Without a netlink socket for forced probes, known hosts are re-verified by datagrams, as when the kernel
    /// refuses a forced probe (the `probing` line says `reverify=traffic`).
    ///
    /// - Parameters:
    ///   - interval: The time between the starts of two rounds nobody asked for (and between two checks while
    ///     scanning is off); positive (precondition).
    ///   - floor: The least time between the starts of two rounds, however they are asked for; more than
    ///     `interval` counts as `interval`.
    ///   - rate: The most datagrams a second (sweep, re-verification and forced probes together); at least 1
    ///     (precondition).
    ///   - scope: The interfaces to probe now (the scanned ones), or `nil` while scanning is off (no round then);
    ///     asked before each round.
    ///   - noRoom: Told, by protocol, how many datagrams of a round the kernel had no room for (a protocol with none
    ///     is absent), after every round.
    ///   - logger: Where rounds are reported.
    ///   - namespacePath: A network namespace's file, e.g. `/run/netns/x`; `nil` for the process's own.
    /// - Throws: ``ProbeError`` if no UDP socket can be opened (or the namespace cannot be entered).
    public init(
        interval: Duration,
        floor: Duration = defaultFloor,
        rate: Int = defaultRate,
        scope: @escaping @Sendable () async -> [String]?,
        noRoom: @escaping @Sendable ([IPProtocol: Int]) async -> Void = { _ in },
        logger: Logger,
        namespacePath: String? = nil
    ) throws(ProbeError) {
        precondition(interval > .zero && rate >= 1, "probing needs a positive interval and rate")
        self.interval = interval
        self.floor = floor
        self.rate = rate
        self.scope = scope
        self.noRoom = noRoom
        self.logger = logger
        prober = try ActiveProber(namespacePath: namespacePath)
        neighbours = NeighbourMonitor(namespacePath: namespacePath, logger: logger)  // for its dump only
        do {
            forcer = try NeighbourProber(namespacePath: namespacePath)
        } catch {
            forcer = nil  // re-verified by datagrams, and said so in the `probing` line (see above)
        }
    }

    /// Asks for a round now (scanning was switched on, say): it starts at once, or at the end of the floor of the
    /// last round; asks made meanwhile are served by that one round. Never waits.
    public func askForRound() {
        asks.add()
    }

    /// Runs rounds until the task is cancelled or the service group shuts down.
    public func run() async throws {
        await cancelWhenGracefulShutdown { await rounds() }
    }

    private func rounds() async {
        let clock = ContinuousClock()
        let origin = clock.now
        var schedule = ProbeSchedule(interval: interval, floor: floor)
        var pacer = ProbePacer(rate: rate)
        var canForce = forcer != nil
        var announces = true
        var wakes = asks.wakes.makeAsyncIterator()
        await withDiscardingTaskGroup { timers in
            var armedFor: Duration?
            while !Task.isCancelled {
                let now = origin.duration(to: clock.now)
                for _ in 0..<asks.takeAll() { schedule.ask(at: now) }
                if schedule.isDue(at: now) {
                    if let interfaces = await scope() {
                        let asked = schedule.roundStarted(at: now)
                        let started = clock.now
                        let outcome = await round(
                            on: interfaces,
                            canForce: canForce,
                            announces: announces,
                            asked: asked,
                            pacer: &pacer
                        )
                        durations.record(started.duration(to: clock.now))
                        canForce = outcome.canForce
                        announces = false
                        await noRoom(outcome.noRoom)
                    } else {
                        schedule.foundIdle(at: now)
                    }
                    continue  // asks that came during the round count from its start
                }
                let due = schedule.nextRound
                if armedFor != due {  // an earlier timer only wakes the loop, which finds nothing due
                    armedFor = due
                    timers.addTask { [asks] in
                        do { try await clock.sleep(until: origin.advanced(by: due)) } catch { return }
                        asks.wake()
                    }
                }
                guard await wakes.next() != nil else { break }  // cancelled: shutting down
            }
            timers.cancelAll()
        }
    }

    /// One round: the sweep, then the re-verification of the entries the kernel knows.
    /// - Returns: Whether forced probes are still permitted, and the datagrams the kernel had no room for.
    private func round(
        on interfaces: [String],
        canForce: Bool,
        announces: Bool,
        asked: Int,
        pacer: inout ProbePacer
    ) async -> (canForce: Bool, noRoom: [IPProtocol: Int]) {
        let sweep = await prober.sweep(interfaces: interfaces, pacer: &pacer)
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
                guard round.canForce, await pacer.next() else { break }
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
        let datagrams = await prober.probe(addresses: round.datagramAddresses, pacer: &pacer)
        if announces {
            var announcement = round.announcement(interval: interval, sweep: sweep, solicitation: prober.solicitation)
            announcement["rate"] = "\(rate)"
            announcement["floor"] = "\(min(floor, interval))"
            logger.log(.probing, announcement)
        }
        var report = round.report(sweep: sweep, datagrams: datagrams)
        report["asked"] = "\(asked)"
        if let dumpError { report["error"] = "\(dumpError)" }
        logger.log(.probeRound, report)
        return (round.canForce, ProbeRound.noRoom(sweep: sweep, datagrams: datagrams))
    }
}

/// The rounds asked for and not seen by the service's loop yet, and the stream that wakes the loop (for an ask, or a
/// timer). Wakes are coalesced (the stream keeps the newest only): the loop reads the count whenever it wakes.
private final class RoundAsks: Sendable {
    let wakes: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation
    private let count = Mutex(0)

    init() {
        (wakes, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    func add() {
        count.withLock { $0 += 1 }
        continuation.yield()
    }

    func wake() {
        continuation.yield()
    }

    func takeAll() -> Int {
        count.withLock { count in
            defer { count = 0 }
            return count
        }
    }
}
