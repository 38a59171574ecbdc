import AsyncPrimitives
import Diffable
import Logging
import NIOConcurrencyHelpers
import PeerScanModel

/// Something for the store to do: a discovery event, a command, or a timer that fired.
public enum StoreInput: Sendable {
    /// An event from the discovery source.
    case discovery(DiscoveryEvent)
    /// Switch scanning on or off; `reply` gets the sequence number after the change.
    case setScanning(Bool, reply: (@Sendable (UInt64) -> Void)?)
    /// The grace period of resync `generation` is over: remove what was not seen again.
    case resyncDeadline(generation: Int)
    /// The grace period of an interface's withdrawal (its `generation`) is over: remove what was learnt there and not
    /// reported again (see ``DiscoveryEvent/interfaceWithdrawn(_:)``).
    case withdrawalDeadline(interface: String, generation: Int)
    /// Settle window `window` is over: publish the devices held back in it as they are.
    case settleDeadline(window: Int)
    /// The time allowed for the initial browse is over: serve the snapshot as it is.
    case initialBrowseDeadline
    /// Time passed: devices that stopped answering may be offline, or forgotten, now.
    case presenceCheck
    /// Forget devices and their keys (``DeviceTable/forget(_:now:)``); `reply` gets whether each was known.
    case forget([DeviceID], reply: (@Sendable ([Bool]) -> Void)?)
}

/// What the store asks its owner to do after a batch, outside the actor.
public struct StoreEffects: Sendable, Equatable {
    /// Start (`true`) or stop (`false`) browsing.
    public var browsing: Bool?
    /// Save the scanning switch.
    public var persistScanning: Bool?
    /// Send ``StoreInput/resyncDeadline(generation:)`` with this generation after the grace period.
    public var resyncDeadline: Int?
    /// Send ``StoreInput/settleDeadline(window:)`` with this window after the settle window's length.
    public var settleDeadline: Int?
    /// Send ``StoreInput/withdrawalDeadline(interface:generation:)`` for each interface with its generation after the
    /// grace period.
    public var withdrawalDeadlines: [String: Int]
    /// Send ``StoreInput/presenceCheck`` after this long: what the store waits for (the initial browse's quiet
    /// period) may be over by then.
    public var checkAfter: Duration?

    /// No effects.
    public init(
        browsing: Bool? = nil,
        persistScanning: Bool? = nil,
        resyncDeadline: Int? = nil,
        settleDeadline: Int? = nil,
        withdrawalDeadlines: [String: Int] = [:],
        checkAfter: Duration? = nil
    ) {
        self.browsing = browsing
        self.persistScanning = persistScanning
        self.resyncDeadline = resyncDeadline
        self.settleDeadline = settleDeadline
        self.withdrawalDeadlines = withdrawalDeadlines
        self.checkAfter = checkAfter
    }
}

/// One published change: the changeset that takes sequence `sequence - 1` to `sequence`.
public struct StoreUpdate: Sendable {
    /// The sequence number the changeset leads to.
    public var sequence: UInt64
    /// The changes.
    public var changes: ScanChangeset

    /// Creates an update.
    public init(sequence: UInt64, changes: ScanChangeset) {
        self.sequence = sequence
        self.changes = changes
    }
}

/// A bounded subscription: where it starts, and a queue of later updates that never holds more than its limit.
///
/// The subscriber starts from ``snapshot`` at ``sequence``; updates after ``sequence`` arrive in ``updates``. A batch
/// with `dropped > 0` means the subscriber fell behind and must start over from ``SnapshotStore/snapshot``. Call
/// ``cancel()`` when done.
public struct QueueSubscription: Sendable {
    /// The snapshot at ``sequence``.
    public var snapshot: ScanSnapshot
    /// The sequence number of ``snapshot``.
    public var sequence: UInt64
    /// Every update after ``sequence``.
    public var updates: DrainingQueue<StoreUpdate>
    /// Ends the subscription.
    public let cancel: @Sendable () -> Void
}

/// A subscriber's starting point and its stream of updates.
public struct Subscription: Sendable {
    /// The snapshot at ``sequence``.
    public var snapshot: ScanSnapshot
    /// The sequence number of ``snapshot``.
    public var sequence: UInt64
    /// Every update after ``sequence``, in order, with no gap and no duplicate.
    public var updates: AsyncStream<StoreUpdate>
}

/// The owner of peerscan's current snapshot.
///
/// Inputs are applied in order, a whole batch at a time, and the snapshot is diffed once per batch. Each non-empty
/// changeset is published with the next sequence number to every subscriber. The store does no I/O: what must
/// happen outside (start browsing, save the switch, arm a timer) comes back as ``StoreEffects``.
public actor SnapshotStore {
    /// The current snapshot.
    public private(set) var snapshot: ScanSnapshot
    /// The sequence number of ``snapshot``: 0 at start, one more for every published changeset.
    public private(set) var sequence: UInt64 = 0

    private var isScanning: Bool
    private var host: HostStatus
    private var table: PeerTable
    private var devices: DeviceTable
    private let now: @Sendable () -> Duration
    private let recordDevices: (@Sendable (DeviceRecords) -> Void)?
    private var resyncGeneration = 0
    /// The grace periods the address records of the current resync have had (see ``finishAddressResyncRound``).
    private var addressResyncRounds = 0
    /// The interfaces withdrawn and not finished yet: the deadline each waits for, whether its link is back, the
    /// rounds it has had and the devices it removed so far.
    private var withdrawals: [String: Withdrawal] = [:]
    private var withdrawalGeneration = 0

    private struct Withdrawal {
        var generation: Int
        var rounds = 0
        /// The rounds it had had when its link came back; nil while the link is down.
        var roundsAtReturn: Int?
        var removed = 0

        var hasReturned: Bool { roundsAtReturn != nil }
        var roundsSinceReturn: Int { roundsAtReturn.map { rounds - $0 } ?? 0 }
    }
    private let logger: Logger
    private let subscribers = Subscribers()
    private let sourceStateKnown = OneShotSignal()
    private let initialBrowseSettled = OneShotSignal()
    private var isInitialBrowseSettled: Bool
    private var hasBrowsingSettled = false
    /// How long nothing new must have been found before the initial browse counts as settled, and when something
    /// last was.
    private let initialBrowseQuietPeriod: Duration
    private var lastFoundDuringInitialBrowse: Duration?
    private var initialBrowseSettledReason: String?
    /// After scanning is switched on, neighbour-only devices wait until Avahi has reported what it knows (or this
    /// time), so that an mDNS host claims its MAC address before a MAC-only device is published for it.
    private var neighbourHoldUntil: Duration?
    private var hasBrowsingSettledSinceScanningOn = false

    /// Creates a store.
    ///
    /// - Parameters:
    ///   - isScanning: The scanning switch at start.
    ///   - interfaces: The interfaces browsed at start, for the `host` item; later changes come as
    ///     ``DiscoveryEvent/browsedInterfaces(_:)``.
    ///   - settles: Whether a device is held back while it waits on rows of its own, for at most a settle window, so
    ///     that one event on the network is one changeset (see ``PeerTable``; peerscand's `--settle-window`). The
    ///     owner times the windows the store asks for (``StoreEffects/settleDeadline``).
    ///   - waitsForInitialBrowse: Whether ``waitUntilInitialBrowseSettled()`` waits for the first browse after start
    ///     to settle (the source reported all it knows while running, every row found is resolved, no device is
    ///     held back), or for ``StoreInput/initialBrowseDeadline``; otherwise, and while scanning is off, it
    ///     returns at once.
    ///   - initialBrowseQuietPeriod: How long nothing new must have been found (a row, a resolution, an address)
    ///     before the initial browse counts as settled: a large LAN is reported for a good while after the source
    ///     said it reported all it knows (the owner checks again when the store asks, ``StoreEffects/checkAfter``).
    ///   - presence: When devices that stopped answering go offline and are forgotten (see ``DeviceTable``); by
    ///     default at once.
    ///   - vendorOf: The organization behind a MAC address.
    ///   - identities: The identifiers known from before (the registry's), which devices keep.
    ///   - now: The monotonic clock presence is measured on (and neighbours' confirmations are given on).
    ///   - recordDevices: Called with what each batch taught about devices, on the store's executor before the
    ///     changeset is published (the registry's intake: it must not block).
    ///   - logger: Where device changes are logged.
    public init(
        isScanning: Bool,
        interfaces: [String],
        settles: Bool = false,
        waitsForInitialBrowse: Bool = false,
        initialBrowseQuietPeriod: Duration = .zero,
        presence: DeviceTable.Presence = .immediate,
        vendorOf: @escaping @Sendable (String) -> String? = { _ in nil },
        identities: DeviceIdentities = DeviceIdentities(),
        now: @escaping @Sendable () -> Duration = MonotonicClock.now,
        recordDevices: (@Sendable (DeviceRecords) -> Void)? = nil,
        logger: Logger
    ) {
        self.isScanning = isScanning
        self.table = PeerTable(settles: settles)
        self.devices = DeviceTable(presence: presence, vendorOf: vendorOf, identities: identities)
        self.now = now
        self.recordDevices = recordDevices
        self.devices.holdsNeighbourOnlyDevices = waitsForInitialBrowse && isScanning
        self.isInitialBrowseSettled = !waitsForInitialBrowse || !isScanning
        self.initialBrowseQuietPeriod = initialBrowseQuietPeriod
        if isInitialBrowseSettled { initialBrowseSettled.fire() }
        self.host = HostStatus(interfaces: interfaces)
        self.logger = logger
        var snapshot = ScanSnapshot()
        try! snapshot.appendSections([.config])
        try! snapshot.appendItems([.scanning(enabled: isScanning), .host(host)])
        if isScanning { try! snapshot.appendSections([.networks]) }
        self.snapshot = snapshot
    }

    /// Whether scanning is on.
    public var scanning: Bool { isScanning }

    /// The current snapshot with its sequence number, read together.
    public func current() -> (snapshot: ScanSnapshot, sequence: UInt64) { (snapshot, sequence) }

    /// The number of devices in the snapshot.
    public var deviceCount: Int { snapshot.numberOfItems(inSection: .networks) ?? 0 }

    /// This host's status as the `host` item shows it.
    public var hostStatus: HostStatus { host }

    /// Applies a batch of inputs in order, diffs once, publishes the changeset if it is not empty, and answers the
    /// replies of the batch's commands.
    ///
    /// - Returns: What the owner must do now.
    @discardableResult
    public func apply(_ inputs: [StoreInput]) -> StoreEffects {
        var effects = StoreEffects()
        var replies: [@Sendable (UInt64) -> Void] = []
        // Browsing only changes after the batch, when its effects are carried out. So the batch's discovery events
        // count if the source was browsing when the batch began, and the switch's effects follow from its net
        // change over the batch: "off, on" in one batch must not forget the devices (the source would not report
        // them again).
        let wasScanning = isScanning
        var requestedScanning = isScanning
        var expiredWindow: Int?
        var forgetReplies: [(@Sendable ([Bool]) -> Void, [Bool])] = []
        for input in inputs {
            switch input {
            case .discovery(let event):
                apply(event, isScanning: wasScanning, effects: &effects)
            case .setScanning(let enabled, let reply):
                if let reply { replies.append(reply) }
                requestedScanning = enabled
            case .settleDeadline(let window):
                expiredWindow = max(expiredWindow ?? window, window)
            case .initialBrowseDeadline:
                settleInitialBrowse(reason: "time-limit")
            case .presenceCheck:
                break  // every batch checks the deadlines
            case .forget(let ids, let reply):
                let time = now()
                let known = ids.map { devices.forget($0, now: time) }
                if let reply { forgetReplies.append((reply, known)) }
            case .resyncDeadline(let generation):
                if generation == resyncGeneration && table.isResyncing && host.sourceState.isRunning {
                    logger.info("avahi resync finished", metadata: ["reason": "grace-period"])
                    table.finishResync()
                }
                if generation == resyncGeneration && host.sourceState.isRunning {
                    finishAddressResyncRound(effects: &effects)
                }
            case .withdrawalDeadline(let interface, let generation):
                guard var withdrawal = withdrawals[interface], withdrawal.generation == generation else { break }
                withdrawal.rounds += 1
                // A link still down gets nothing back; one that is back gets rounds to be learnt again, two at least
                // (the daemon flushes records while it fills its cache of the link again, as after a restart).
                let final = !withdrawal.hasReturned || withdrawal.rounds >= Self.maximumWithdrawalRounds
                if !final && withdrawal.roundsSinceReturn < 2 {
                    withdrawals[interface] = withdrawal
                    armWithdrawalDeadline(interface, effects: &effects)
                    break
                }
                let (devices, waiting) = table.finishWithdrawal(of: interface, final: final)
                withdrawal.removed += devices
                withdrawals[interface] = withdrawal
                if waiting > 0 {
                    armWithdrawalDeadline(interface, effects: &effects)
                } else {
                    withdrawals[interface] = nil
                    logger.info(
                        "interface resync finished",
                        metadata: [
                            "interface": "\(interface)", "removed": "\(withdrawal.removed)",
                            "rounds": "\(withdrawal.rounds)",
                        ]
                    )
                }
            }
        }
        if requestedScanning != wasScanning {
            isScanning = requestedScanning
            effects.browsing = requestedScanning
            effects.persistScanning = requestedScanning
            if requestedScanning {
                devices.holdsNeighbourOnlyDevices = true
                neighbourHoldUntil = now() + .seconds(5)
                hasBrowsingSettledSinceScanningOn = false
            } else {
                table.removeAll()
                withdrawals = [:]
                devices.removeAll()
                neighbourHoldUntil = nil
            }
            logger.info("scanning switched", metadata: ["enabled": "\(requestedScanning)"])
        }
        if !isInitialBrowseSettled && !isScanning { settleInitialBrowse(reason: "scanning-off") }
        publish(makeSnapshot(windowExpired: expiredWindow, effects: &effects))
        if !isInitialBrowseSettled && hasBrowsingSettled && table.isSettled {
            let quietFor = lastFoundDuringInitialBrowse.map { now() - $0 } ?? initialBrowseQuietPeriod
            if quietFor >= initialBrowseQuietPeriod {
                settleInitialBrowse(reason: "all-for-now")
                // The neighbour-only devices held till now.
                publish(makeSnapshot(windowExpired: nil, effects: &effects))
            } else {
                effects.checkAfter = initialBrowseQuietPeriod - quietFor
            }
        }
        announceInitialBrowseSettled()
        for reply in replies { reply(sequence) }
        for (reply, known) in forgetReplies { reply(known) }
        return effects
    }

    /// Subscribes to the changes: returns the current snapshot and sequence, and every later update.
    ///
    /// The stream buffers without bound; the caller is expected to read it promptly (or to bound its own queue).
    /// It ends when the subscriber stops iterating or the store ends all subscriptions.
    public func subscribe() -> Subscription {
        let (stream, continuation) = AsyncStream<StoreUpdate>.makeStream()
        let id = subscribers.add(.stream(continuation))
        continuation.onTermination = { [subscribers] _ in subscribers.remove(id) }
        return Subscription(snapshot: snapshot, sequence: sequence, updates: stream)
    }

    /// Returns once the discovery source has reported its state at least once (running, connecting to a daemon
    /// that is not there yet, unavailable, …), so that the daemon can tell systemd it is ready.
    ///
    /// Returns early when the waiting task is cancelled.
    public func waitUntilSourceStateKnown() async {
        await sourceStateKnown.wait()
    }

    /// Returns once the first browse after start has settled, so that a client's first snapshot does not lack
    /// devices that are there but not rediscovered yet (see `waitsForInitialBrowse`). Returns early when the waiting
    /// task is cancelled.
    public func waitUntilInitialBrowseSettled() async {
        await initialBrowseSettled.wait()
    }

    /// Whether the first browse after start has settled (or the store does not wait for it).
    public var hasInitialBrowseSettled: Bool { isInitialBrowseSettled }

    private func releaseNeighbourOnlyDevices() {
        neighbourHoldUntil = nil
        if isInitialBrowseSettled { devices.holdsNeighbourOnlyDevices = false }
    }

    /// Ends the wait for the first browse; ``announceInitialBrowseSettled()`` tells the waiters once the batch's
    /// snapshot (with the neighbour-only devices held till now) is published.
    private func settleInitialBrowse(reason: String) {
        guard !isInitialBrowseSettled else { return }
        isInitialBrowseSettled = true
        devices.holdsNeighbourOnlyDevices = neighbourHoldUntil != nil
        initialBrowseSettledReason = reason
    }

    private func announceInitialBrowseSettled() {
        guard let reason = initialBrowseSettledReason else { return }
        initialBrowseSettledReason = nil
        logger.info("initial browse settled", metadata: ["reason": "\(reason)", "devices": "\(deviceCount)"])
        initialBrowseSettled.fire()
    }

    /// Subscribes with a bounded queue: returns the current snapshot and sequence, and a queue of every later update.
    ///
    /// - Parameter limit: The most updates queued for this subscriber; beyond it they are dropped (see
    ///   ``QueueSubscription``).
    public func subscribe(limit: Int) -> QueueSubscription {
        let queue = DrainingQueue<StoreUpdate>(limit: limit)
        let id = subscribers.add(.queue(queue))
        return QueueSubscription(
            snapshot: snapshot,
            sequence: sequence,
            updates: queue,
            cancel: { [subscribers] in subscribers.remove(id) }
        )
    }

    /// Calls `observer` with every update from now on, synchronously as the store publishes it and before any
    /// subscriber sees it (so that, once ``sequence`` reads `n`, the observer has had every update up to `n`).
    ///
    /// For what must never miss an update and is cheap to call, such as a history of recent changes; the observer
    /// runs on the store's executor, so it must not block.
    ///
    /// - Parameter observer: Called once per update, in order.
    public nonisolated func observe(_ observer: @escaping @Sendable (StoreUpdate) -> Void) {
        _ = subscribers.add(.observer(observer))
    }

    /// Ends every subscription's stream (at shutdown).
    public func finishSubscriptions() {
        subscribers.finishAll()
    }

    private func apply(_ event: DiscoveryEvent, isScanning: Bool, effects: inout StoreEffects) {
        switch event {
        case .sourceState(let state, let hostName):
            sourceStateKnown.fire()
            if state != host.sourceState {
                logger.notice("avahi state", metadata: ["state": "\(state.name)", "reason": "\(state.reason ?? "")"])
            }
            if !state.isRunning { table.sourceWentAway() }
            if !state.isRunning && (host.sourceState.isRunning || !table.isResyncing) && table.deviceCount > 0 {
                // Keep the devices through the outage; those not seen again are removed afterwards. A new outage
                // during a resync starts it over: the daemon that comes back reports nothing about the old one.
                table.beginResync()
                withdrawals = [:]  // the resync covers the interfaces withdrawn before
                resyncGeneration += 1
                addressResyncRounds = 0
            }
            if state.isRunning && !host.sourceState.isRunning && table.isResyncing {
                effects.resyncDeadline = resyncGeneration
            }
            host.sourceState = state
            if let hostName { host.hostName = hostName }
        case .browsedInterfaces(let interfaces):
            if interfaces != host.interfaces {
                logger.info("interfaces changed", metadata: ["interfaces": "\(interfaces.joined(separator: ","))"])
                host.interfaces = interfaces
            }
        case .interfaceWithdrawn(let interface):
            guard isScanning else { break }
            table.apply(event)
            logger.notice(
                "interface withdrawn",
                metadata: ["interface": "\(interface)", "devices": "\(table.deviceCount(on: interface))"]
            )
            withdrawals[interface] = Withdrawal(generation: 0)
            armWithdrawalDeadline(interface, effects: &effects)
        case .interfaceReturned(let interface):
            guard isScanning else { break }
            table.apply(event)
            guard let withdrawal = withdrawals[interface], !withdrawal.hasReturned else { break }
            logger.info("interface returned", metadata: ["interface": "\(interface)"])
            withdrawals[interface]?.roundsAtReturn = withdrawal.rounds
            armWithdrawalDeadline(interface, effects: &effects)  // the grace counts from the link's return
        case .browsingSettled:
            if host.sourceState.isRunning { hasBrowsingSettled = true }
            if host.sourceState.isRunning && isScanning { hasBrowsingSettledSinceScanningOn = true }
            if table.isResyncing && host.sourceState.isRunning {
                table.finishResyncOfTypesSeenAgain()
                if !table.isResyncing { logger.info("avahi resync finished", metadata: ["reason": "all-for-now"]) }
            }
        case .serviceFound, .serviceResolved, .serviceRemoved, .resolveFailed, .typeSettled, .addressAdded,
            .addressRemoved, .followingAddresses, .addressesKnown:
            guard isScanning else { break }
            table.apply(event)
            switch event {
            case .serviceFound, .serviceResolved, .addressAdded:
                if !isInitialBrowseSettled { lastFoundDuringInitialBrowse = now() }
            default:
                break
            }
        case .neighbourTable(let all):
            if isScanning { devices.replaceNeighbours(all.filter(isScanned), now: now()) }
        case .neighbourUpdated(let neighbour):
            if isScanning && isScanned(neighbour) { devices.updateNeighbour(neighbour, now: now()) }
        case .neighbourRemoved(let neighbour):
            if isScanning { devices.removeNeighbour(neighbour, now: now()) }
        }
    }

    /// The grace periods address records not reported again are kept through after a resync.
    static let maximumAddressResyncRounds = 6
    /// The most grace periods a withdrawn link that is back is given while it is still being learnt again (a link
    /// that flaps on and on must not keep what it had forever).
    static let maximumWithdrawalRounds = 12

    /// A grace period of the address resync is over: while records are still not reported again, another one, up to
    /// ``maximumAddressResyncRounds`` in all, after which they are dropped (a daemon that comes back to a large LAN
    /// takes a while to ask every host again).
    private func finishAddressResyncRound(effects: inout StoreEffects) {
        addressResyncRounds += 1
        let final = addressResyncRounds >= Self.maximumAddressResyncRounds
        let waiting = table.finishAddressResync(final: final)
        if waiting > 0 {
            effects.resyncDeadline = resyncGeneration
        } else if addressResyncRounds > 1 {
            logger.info("avahi address resync finished", metadata: ["rounds": "\(addressResyncRounds)"])
        }
    }

    /// Asks for the deadline of an interface's withdrawal, replacing the one it waited for.
    private func armWithdrawalDeadline(_ interface: String, effects: inout StoreEffects) {
        withdrawalGeneration += 1
        withdrawals[interface]?.generation = withdrawalGeneration
        effects.withdrawalDeadlines[interface] = withdrawalGeneration
    }

    /// Whether a neighbour is on one of the interfaces scanned.
    private func isScanned(_ neighbour: Neighbour) -> Bool {
        host.interfaces.contains(neighbour.interface)
    }

    /// The snapshot as it should be now: the current one, edited where something changed.
    private func makeSnapshot(windowExpired: Int?, effects: inout StoreEffects) -> ScanSnapshot {
        let time = now()
        if let until = neighbourHoldUntil,
            time >= until || !host.sourceState.isRunning || (hasBrowsingSettledSinceScanningOn && table.isSettled)
        {
            releaseNeighbourOnlyDevices()
        }
        let (changedHosts, settle) = table.takeChangedDevices(windowExpired: windowExpired)
        if let window = settle?.window { effects.settleDeadline = window }
        for (hostName, device) in changedHosts {
            devices.updateMDNSDevice(hostName: hostName, device: device, now: time)
        }
        let (changed, events) = devices.takeChanges(now: time)
        let identityChanges = devices.takeIdentityChanges()  // taken even with no registry: they must not pile up
        if let recordDevices {
            let records = DeviceRecords(
                identityChanges: identityChanges,
                devices: changed.compactMap(\.device),
                departed: changed.filter { $0.device == nil }.map(\.id)
            )
            if !records.isEmpty { recordDevices(records) }
        }
        let hasNetworks = snapshot.contains(section: .networks)
        if changed.isEmpty && isScanning == hasNetworks
            && snapshot.item(withIdentifier: DeviceID.scanning) == .scanning(enabled: isScanning)
            && snapshot.item(withIdentifier: DeviceID.host) == .host(host)
        {
            return snapshot  // nothing to edit (a presence check that found nothing due, say)
        }
        var next = snapshot
        do {
            try next.updateItems([.scanning(enabled: isScanning)])
            if isScanning {
                if !next.contains(section: .networks) { try next.appendSections([.networks]) }
                for (id, device) in changed { try place(device, id: id, in: &next) }
            } else if next.contains(section: .networks) {
                try next.deleteSections([.networks])
            }
            try next.updateItems([.host(host)])
        } catch {
            // Our own edits of our own snapshot cannot fail; if they ever do, say so and keep the last good state.
            logger.error("snapshot edit failed", metadata: ["error": "\(error)"])
            return snapshot
        }
        for event in events { log(event) }
        return next
    }

    /// Brings a device's item up to date: removes it, inserts it at its sorted position, or updates it in place.
    private func place(_ device: Device?, id: DeviceID, in next: inout ScanSnapshot) throws {
        let old = next.item(withIdentifier: id)?.device
        guard old != device else { return }
        if let old, let device, old.sortKey == device.sortKey {
            try next.updateItems([.peer(device)])  // the sort key is unchanged
        } else {
            if old != nil { try next.deleteItems([id]) }
            if let device {
                let peers = next.items(inSection: .networks) ?? []
                let index = Self.insertionIndex(of: device, in: peers)
                if index < peers.count {
                    try next.insertItems([.peer(device)], beforeItem: peers[index].id)
                } else {
                    try next.appendItems([.peer(device)], toSection: .networks)
                }
            }
        }
        if let old, let device {
            let fields = Device.changedFields(from: old, to: device).filter { $0 != "online" }
            if !fields.isEmpty {  // coming and going have lines of their own
                var metadata = device.logMetadata
                metadata["fields"] = "\(fields.joined(separator: ","))"
                logger.info("device changed", metadata: metadata)
            }
        }
    }

    /// Where a device goes among the sorted peers (``Device/sortKey``).
    /// - Complexity: O(log n)
    static func insertionIndex(of device: Device, in peers: [ScanItem]) -> Int {
        let key = device.sortKey
        var low = 0
        var high = peers.count
        while low < high {
            let middle = (low + high) / 2
            if let other = peers[middle].device?.sortKey, other < key { low = middle + 1 } else { high = middle }
        }
        return low
    }

    private func log(_ event: DeviceTable.Event) {
        switch event {
        case .appeared(let device):
            logger.notice("new device", metadata: device.logMetadata)
        case .returned(let device):
            logger.info("device online", metadata: device.logMetadata)
        case .online(let device):
            logger.info("device online", metadata: device.logMetadata)
        case .offline(let device):
            logger.info("device offline", metadata: device.logMetadata)
        case .forgotten(let device):
            logger.info("device removed", metadata: device.logMetadata)
        case .merged(let device, let into):
            var metadata = device.logMetadata
            metadata["into"] = "\(into)"
            logger.info("device merged", metadata: metadata)
        case .addressConflict(let address, let mac, let previous):
            logger.warning(
                "address conflict",
                metadata: ["address": "\(address)", "mac": "\(mac)", "previous_mac": "\(previous)"]
            )
        case .macChanged(let address, let mac, let previous, let device):
            var metadata: Logger.Metadata = ["address": "\(address)", "mac": "\(mac)", "previous_mac": "\(previous)"]
            if let device { metadata["id"] = "\(device)" }
            logger.notice("mac changed", metadata: metadata)
        }
    }

    private func publish(_ next: ScanSnapshot) {
        let changes = next.difference(from: snapshot)
        guard !changes.isEmpty else { return }
        snapshot = next
        sequence += 1
        subscribers.yield(StoreUpdate(sequence: sequence, changes: changes))
    }
}

/// The store's subscribers. A class around a lock, so that a subscriber can be removed synchronously, from any
/// thread (a stream's termination handler, a connection that ends).
private final class Subscribers: Sendable {
    enum Sink: Sendable {
        case stream(AsyncStream<StoreUpdate>.Continuation)
        case queue(DrainingQueue<StoreUpdate>)
        case observer(@Sendable (StoreUpdate) -> Void)

        func yield(_ update: StoreUpdate) {
            switch self {
            case .stream(let continuation): continuation.yield(update)
            case .queue(let queue): queue.push(update)
            case .observer(let observer): observer(update)
            }
        }

        func finish() {
            switch self {
            case .stream(let continuation): continuation.finish()
            case .queue(let queue): queue.finish()
            case .observer: break
            }
        }
    }

    private let sinks = NIOLockedValueBox<(next: Int, all: [Int: Sink])>((0, [:]))

    func add(_ sink: Sink) -> Int {
        sinks.withLockedValue { state in
            defer { state.next += 1 }
            state.all[state.next] = sink
            return state.next
        }
    }

    func remove(_ id: Int) {
        _ = sinks.withLockedValue { $0.all.removeValue(forKey: id) }
    }

    /// Observers first, then the other subscribers (which may then find what the observers prepared).
    func yield(_ update: StoreUpdate) {
        let all = sinks.withLockedValue { Array($0.all.values) }
        for case .observer(let observer) in all { observer(update) }
        for sink in all {
            if case .observer = sink { continue }
            sink.yield(update)
        }
    }

    func finishAll() {
        let all = sinks.withLockedValue { state in
            defer { state.all = [:] }
            return Array(state.all.values)
        }
        for sink in all { sink.finish() }
    }
}
