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
    private let sources: [any DiscoverySource]
    private let inputs = DrainingQueue<StoreInput>()
    private let stateFile: ScanningStateFile?
    private let resyncGracePeriod: Duration
    private let settleWindow: Duration
    private let initialBrowseLimit: Duration?
    private let presenceInterval: Duration?
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
    ///   - presenceInterval: How often the store checks whether devices that stopped answering are offline or
    ///     forgotten now; `nil` never (devices then go at once: the store's presence must be immediate).
    ///   - logger: Where the store's log lines go.
    ///
    /// The grace period, settle windows and presence checks are timed on the store's clock.
    public init(
        sources: [any DiscoverySource],
        store: SnapshotStore,
        stateFile: ScanningStateFile?,
        resyncGracePeriod: Duration = .seconds(10),
        settleWindow: Duration = .milliseconds(100),
        initialBrowseLimit: Duration? = nil,
        presenceInterval: Duration? = nil,
        logger: Logger
    ) {
        self.sources = sources
        self.presenceInterval = presenceInterval
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
        let reply = await withCheckedContinuation { (continuation: CheckedContinuation<UInt64?, Never>) in
            let queued = inputs.push(.setScanning(enabled, reply: { continuation.resume(returning: $0) }))
            if !queued { continuation.resume(returning: nil) }
        }
        if let reply { return reply }
        return await store.sequence
    }

    /// Forgets devices and their keys (see ``DeviceTable/forget(_:now:)``) and returns whether each was known; `nil`
    /// once the service has stopped.
    public func forget(_ ids: [DeviceID]) async -> [Bool]? {
        await withCheckedContinuation { (continuation: CheckedContinuation<[Bool]?, Never>) in
            let queued = inputs.push(.forget(ids, reply: { continuation.resume(returning: $0) }))
            if !queued { continuation.resume(returning: nil) }
        }
    }

    /// Applies a person's change to a device's label and returns the label now; `nil` for a device not known, or
    /// once the service has stopped.
    public func setLabel(_ edit: DeviceLabelEdit, of id: DeviceID) async -> DeviceLabel? {
        await withCheckedContinuation { (continuation: CheckedContinuation<DeviceLabel?, Never>) in
            let queued = inputs.push(.setLabel(id, edit, reply: { continuation.resume(returning: $0) }))
            if !queued { continuation.resume(returning: nil) }
        }
    }

    /// A person's merge of `others` into `survivor` (see ``DeviceTable/merge(_:into:)``), once it is in the
    /// snapshot; `nil` once the service has stopped.
    public func merge(_ others: [DeviceID], into survivor: DeviceID) async -> Result<Void, DeviceEditError>? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, DeviceEditError>?, Never>) in
            let queued = inputs.push(.merge(survivor, others: others, reply: { continuation.resume(returning: $0) }))
            if !queued { continuation.resume(returning: nil) }
        }
    }

    /// A person's split of `key` off `id` (see ``DeviceTable/split(_:from:)``), once it is in the snapshot: the
    /// key's new identifier; `nil` once the service has stopped.
    public func split(_ key: IdentityKey, from id: DeviceID) async -> Result<DeviceID, DeviceEditError>? {
        await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<DeviceID, DeviceEditError>?, Never>) in
            let queued = inputs.push(.split(id, key: key, reply: { continuation.resume(returning: $0) }))
            if !queued { continuation.resume(returning: nil) }
        }
    }

    /// Binds a Bluetooth IRK to `id`, or removes its key (`nil`) (see ``DeviceTable/setIRK(_:for:)``), once it is in
    /// the snapshot; `nil` once the service has stopped.
    public func setIRK(_ key: IdentityResolvingKey?, for id: DeviceID) async -> Result<Void, DeviceEditError>? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, DeviceEditError>?, Never>) in
            let queued = inputs.push(.setIRK(id, key, reply: { continuation.resume(returning: $0) }))
            if !queued { continuation.resume(returning: nil) }
        }
    }

    /// A person's change of the Wi-Fi evil-twin baseline (see ``WirelessTable/apply(_:)-(WiFiTrustEdit)``): the
    /// SSID's known networks after it; `nil` once the service has stopped.
    public func editWiFiTrust(_ edit: WiFiTrustEdit) async -> Result<[KnownWiFiNetwork], WiFiTrustError>? {
        await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<[KnownWiFiNetwork], WiFiTrustError>?, Never>) in
            let queued = inputs.push(.editWiFiTrust(edit, reply: { continuation.resume(returning: $0) }))
            if !queued { continuation.resume(returning: nil) }
        }
    }

    /// Queues a command without waiting for it.
    public func submit(_ input: StoreInput) {
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
            if let presenceInterval {
                group.addTask { [inputs, clock = store.scanClock] in
                    while (try? await clock.sleep(for: presenceInterval)) != nil {
                        guard inputs.push(.presenceCheck) else { return }
                    }
                }
            }
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
