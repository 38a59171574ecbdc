import AsyncPrimitives
import Discovery
import Logging
import MonitoringLog
import PeerScanModel
import ServiceLifecycle

/// The scanner: runs the discovery sources and feeds their events, and commands, to the store — one batch at a time.
///
/// Everything pending is applied together (see ``DrainingQueue``), so a burst of mDNS events becomes one changeset.
/// The service carries out the store's effects: it starts and stops browsing, saves the scanning switch, arms the
/// store's timers (on the store's clock), writes the store's log lines and hands its questions to the sources.
public struct ScanService: Service {
    /// The store the service feeds.
    public let store: SnapshotStore
    /// The counted events among the lines the service logged since start.
    public let loggedEvents = LoggedEventCounts()
    private let sources: [any DiscoverySource]
    private let inputs = DrainingQueue<StoreInput>()
    private let stateFile: ScanningStateFile?
    private let resyncGracePeriod: Duration
    private let settleWindow: Duration
    private let initialBrowseLimit: Duration?
    private let logger: Logger

    /// Creates the service.
    ///
    /// - Parameters:
    ///   - sources: Where devices are discovered (mDNS, the kernel's neighbour table, …), switched on and off
    ///     together.
    ///   - store: The store to feed; its scanning switch decides whether browsing starts.
    ///   - stateFile: Where the scanning switch is saved; `nil` to keep it in memory only.
    ///   - resyncGracePeriod: How long after the discovery daemon comes back devices not seen again are kept, if it
    ///     does not report that it is done first; likewise what was learnt on an interface whose link went down, after
    ///     the link is back (or after it went down, if it stays down).
    ///   - settleWindow: The longest a device is held back while it settles (when the store settles).
    ///   - initialBrowseLimit: The longest the store waits for the initial browse to settle (for a store that waits);
    ///     `nil` for none.
    ///   - logger: Where the store's log lines go.
    ///
    /// The grace period, settle windows and the store's deadlines (presence, Wi-Fi expiry) are timed on the store's
    /// clock: the store says when it is next due (``StoreEffects/checkAfter``), and nothing polls.
    public init(
        sources: [any DiscoverySource],
        store: SnapshotStore,
        stateFile: ScanningStateFile?,
        resyncGracePeriod: Duration = .seconds(10),
        settleWindow: Duration = .milliseconds(100),
        initialBrowseLimit: Duration? = nil,
        logger: Logger
    ) {
        self.sources = sources
        self.store = store
        self.stateFile = stateFile
        self.resyncGracePeriod = resyncGracePeriod
        self.settleWindow = settleWindow
        self.initialBrowseLimit = initialBrowseLimit
        self.logger = logger
    }

    /// Switches scanning on or off and returns the sequence number once the change is in the snapshot.
    /// Once the service has stopped, nothing changes any more: the current sequence is returned.
    public func setScanning(_ enabled: Bool) async -> UInt64 {
        if let reply = await request({ .setScanning(enabled, reply: $0) }) { return reply }
        return await store.sequence
    }

    /// Applies a person's edit of the devices (see ``DeviceTable/apply(_:now:)``) and returns its reply once the
    /// change is in the snapshot; `nil` once the service has stopped.
    ///
    /// - Parameter make: Builds the edit around its reply, e.g. `{ .forget(ids, reply: $0) }`.
    public func edit<Reply: Sendable>(_ make: (@escaping DeviceEdit.Reply<Reply>) -> DeviceEdit) async -> Reply? {
        await request { .edit(make($0)) }
    }

    /// Queues a command built around its reply and returns the reply once the change is in the snapshot; `nil` once
    /// the service has stopped (see ``StoreInput/request(_:submit:)``).
    public func request<Reply: Sendable>(_ make: (@escaping @Sendable (Reply) -> Void) -> StoreInput) async -> Reply? {
        await StoreInput.request(make, submit: submit)
    }

    /// Queues a command without waiting for it.
    /// - Returns: Whether it was queued (not once the service has stopped).
    @discardableResult
    public func submit(_ input: StoreInput) -> Bool {
        inputs.push(input)
    }

    public func run() async throws {
        let scanning = await store.scanning
        for source in sources { source.setBrowsing(scanning) }
        try await withThrowingDiscardingTaskGroup { group in
            for source in sources {
                group.addTask { try await source.run() }
                group.addTask { [inputs] in
                    for await event in source.events { inputs.push(.discovery(event)) }
                }
            }
            if let initialBrowseLimit { submit(.initialBrowseDeadline, after: initialBrowseLimit, in: &group) }
            await withGracefulShutdownHandler {
                while let batch = await inputs.next() {
                    let effects = await store.apply(batch)
                    perform(effects, in: &group)
                }
            } onGracefulShutdown: { [inputs] in
                inputs.finish()
            }
            await store.finishSubscriptions()
            group.cancelAll()
        }
    }

    private func perform(_ effects: StoreEffects, in group: inout ThrowingDiscardingTaskGroup<any Error>) {
        for entry in effects.logs { logger.log(entry) }
        loggedEvents.count(effects.logs)
        for question in effects.questions {
            for source in sources { source.ask(question) }
        }
        if let browsing = effects.browsing {
            for source in sources { source.setBrowsing(browsing) }
        }
        if let isScanning = effects.persistScanning, let stateFile {
            do {
                try stateFile.save(isScanning)
            } catch {
                // The switch still works in memory; only its survival across a restart is lost.
                logger.log(.stateSaveFailed, ["error": "\(error)"])
            }
        }
        if let generation = effects.resyncDeadline {
            submit(.resyncDeadline(generation: generation), after: resyncGracePeriod, in: &group)
        }
        for (interface, generation) in effects.withdrawalDeadlines {
            submit(
                .withdrawalDeadline(interface: interface, generation: generation),
                after: resyncGracePeriod,
                in: &group
            )
        }
        if let delay = effects.checkAfter {
            submit(.presenceCheck, after: delay, in: &group)
        }
        if let window = effects.settleDeadline {
            submit(.settleDeadline(window: window), after: settleWindow, in: &group)
        }
    }

    /// A timer: queues `input` once `delay` has passed on the service's clock. Cancelled at shutdown, when nothing is
    /// left for it to do.
    private func submit(
        _ input: StoreInput,
        after delay: Duration,
        in group: inout ThrowingDiscardingTaskGroup<any Error>
    ) {
        group.addTask { [inputs, clock = store.scanClock] in
            guard (try? await clock.sleep(for: delay)) != nil else { return }
            inputs.push(input)
        }
    }
}
