import Discovery
import Logging
import MonitoringLog
import NIOConcurrencyHelpers
import NeighbourTable

/// The kernel's neighbour table as a discovery source: the entries of a ``NeighbourMonitor``, in PeerScanCore's terms.
///
/// While browsing is off nothing is reported; when it is switched on, the whole table is reported again (the consumer
/// forgot it). Entries the kernel never resolves (`NOARP`, `NONE`) and those on loopback are left out; the store keeps
/// only those on the interfaces scanned.
public final class NeighbourDiscoverySource: DiscoverySource {
    let monitor: NeighbourMonitor
    public let events: AsyncStream<DiscoveryEvent>
    private let continuation: AsyncStream<DiscoveryEvent>.Continuation
    private let browsing = NIOLockedValueBox(false)
    private let clock: ScanClock
    private let logger: Logger

    public init(monitor: NeighbourMonitor, clock: ScanClock, logger: Logger) {
        self.monitor = monitor
        self.clock = clock
        self.logger = logger
        (events, continuation) = AsyncStream.makeStream()
    }

    /// Follows the table until cancelled. If the kernel's table cannot be read (no netlink socket: a sandbox that
    /// forbids it) or reading it fails, says so and tries again after a backoff (1 s doubling to 60 s); mDNS
    /// discovery goes on meanwhile.
    public func run() async throws {
        await withDiscardingTaskGroup { group in
            group.addTask { [monitor, logger] in
                var backoff = Duration.seconds(1)
                while !Task.isCancelled {
                    do {
                        try await monitor.run()
                        return  // cancelled
                    } catch {
                        logger.log(
                            .neighbourTableUnavailable,
                            ["error": "\(error)", "retry": "\(backoff)"]
                        )
                    }
                    guard (try? await Task.sleep(for: backoff)) != nil else { return }
                    backoff = min(backoff * 2, .seconds(60))
                }
            }
            group.addTask { [self] in
                for await event in monitor.events {
                    guard browsing.withLockedValue({ $0 }) else { continue }
                    switch event {
                    case .table(let entries):
                        continuation.yield(
                            .neighbour(.neighbourTable(entries.compactMap { Self.neighbour($0, now: clock.now()) }))
                        )
                    case .updated(let entry):
                        if let neighbour = Self.neighbour(entry, now: clock.now()) {
                            continuation.yield(.neighbour(.neighbourUpdated(neighbour)))
                        }
                    case .removed(let entry):
                        if let neighbour = Self.neighbour(entry, now: clock.now()) {
                            continuation.yield(.neighbour(.neighbourRemoved(neighbour)))
                        }
                    }
                }
            }
        }
        continuation.finish()
    }

    public func setBrowsing(_ enabled: Bool) {
        let wasBrowsing = browsing.withLockedValue { state in
            defer { state = enabled }
            return state
        }
        // The table arrives as a `.table` event, dumped on the monitor's thread (never this caller's).
        if enabled && !wasBrowsing { monitor.requestTable() }
    }

    /// An entry in PeerScanCore's terms, or `nil` for one the kernel never resolves.
    static func neighbour(_ entry: NeighbourEntry, now: Duration) -> Neighbour? {
        let state: Neighbour.State
        switch entry.state {
        case .incomplete: state = .incomplete
        case .reachable: state = .reachable
        case .stale: state = .stale
        case .delay: state = .delay
        case .probe: state = .probe
        case .failed: state = .failed
        case .permanent: state = .permanent
        case .noARP, .none: return nil
        }
        guard !entry.interfaceName.isEmpty, entry.interfaceName != "lo" else { return nil }
        return Neighbour(
            address: entry.address,
            interface: entry.interfaceName,
            macAddress: entry.macAddress,
            state: state,
            lastConfirmed: entry.confirmedAgo.map { now - $0 }
        )
    }
}
