import AsyncPrimitives
import Diffable
import Discovery
import MonitoringLog
import PeerScanModel

/// The owner of peerscan's current snapshot: it sequences what happens and publishes each change once.
///
/// Inputs are applied in order, a whole batch at a time, and the snapshot is diffed once per batch. Each non-empty
/// changeset is published with the next sequence number to every subscriber. The decisions are made by pure parts — the
/// mDNS host table (``MDNSHostTable``) and its ``ResyncSchedule``, the ``DeviceTable``, the ``InitialBrowseGate`` and
/// the ``SnapshotProjection`` — and the store does no I/O: what must happen outside (start browsing, save the switch,
/// arm a timer, write a log line) comes back as ``StoreEffects``.
public actor SnapshotStore {
    /// The current snapshot.
    public private(set) var snapshot: ScanSnapshot
    /// The sequence number of ``snapshot``: 0 at start, one more for every published changeset.
    public private(set) var sequence: UInt64 = 0

    // The parts below are internal, not private, only for SnapshotStore+Discovery.swift (how a discovery event reaches
    // them): nothing outside the store touches them.

    var isScanning: Bool
    var host: HostStatus
    var table: MDNSHostTable
    var schedule = ResyncSchedule()
    var devices: DeviceTable
    var gate: InitialBrowseGate
    var wireless: WirelessTable
    private var checkRequested: Duration?
    var limits: SystemLimitTracker
    let clock: ScanClock
    private let alertsNewDevices: Bool
    private let recordDevices: (@Sendable (DeviceRecords) -> Void)?
    private let recordNetworks: (@Sendable (WirelessRecords) -> Void)?
    private let recordUpdate: (@Sendable (StoreUpdate) -> Void)?
    private let recordNotices: (@Sendable ([StoreNotice]) -> Void)?
    let subscribers = Subscribers()
    let sourceStateKnown = OneShotSignal()
    private let initialBrowseSettled = OneShotSignal()

    /// Creates a store over its parts.
    ///
    /// - Parameters:
    ///   - isScanning: The scanning switch at start.
    ///   - interfaces: The interfaces browsed at start, for the `host` item; later changes come as
    ///     ``MDNSEvent/browsedInterfaces(_:)``.
    ///   - devices: The device table (its presence, vendors, the identities, labels and Bluetooth settings known from
    ///     before).
    ///   - wireless: The Wi-Fi networks' table (its `--wifi-expire`, the networks known from before).
    ///   - mdns: The mDNS host table; one that settles holds a device back while it waits on rows of its own, for at
    ///     most a settle window, so that one event on the network is one changeset (see ``MDNSHostTable``;
    ///     peerscand's `--settle-window`). The owner times the windows the store asks for
    ///     (``StoreEffects/settleDeadline``).
    ///   - initialBrowseQuietPeriod: If not `nil`, ``waitUntilInitialBrowseSettled()`` waits for the first browse
    ///     after start to settle (see ``InitialBrowseGate``), or for ``StoreInput/initialBrowseDeadline``: until
    ///     nothing new was found (a row, a resolution, an address) for this long (the owner checks again when the
    ///     store asks, ``StoreEffects/checkAfter``). `nil`, and while scanning is off, it returns at once.
    ///   - systemLimits: The system's limits as read at start, for the `host` item's `limits` (``SystemLimitCheck``).
    ///   - clock: The clock presence is measured on (and neighbours' confirmations are given on): the daemon's one
    ///     clock, which the scan service times the store's deadlines on too.
    ///   - alertsNewDevices: Whether every `new device` line is logged at warning (as arpwatch reports a new
    ///     station), not only an important device's.
    ///   - recorders: Where what each batch taught, and every update, are reported.
    public init(
        isScanning: Bool,
        interfaces: [String],
        devices: DeviceTable = DeviceTable(),
        wireless: WirelessTable = WirelessTable(expiry: .seconds(150)),
        mdns: MDNSHostTable = MDNSHostTable(),
        initialBrowseQuietPeriod: Duration? = nil,
        systemLimits: SystemLimitSettings = SystemLimitSettings(),
        clock: ScanClock = .continuous,
        alertsNewDevices: Bool = false,
        recorders: StoreRecorders = StoreRecorders()
    ) {
        self.limits = SystemLimitTracker(settings: systemLimits)
        self.isScanning = isScanning
        self.table = mdns
        self.devices = devices
        self.alertsNewDevices = alertsNewDevices
        self.gate = InitialBrowseGate(
            waits: initialBrowseQuietPeriod != nil,
            isScanning: isScanning,
            quietPeriod: initialBrowseQuietPeriod ?? .zero
        )
        self.devices.holdsNeighbourOnlyDevices = gate.holdsNeighbourOnlyDevices
        self.clock = clock
        self.recordDevices = recorders.devices
        self.wireless = wireless
        self.recordNetworks = recorders.networks
        self.recordUpdate = recorders.updates
        self.recordNotices = recorders.notices
        if gate.isSettled { initialBrowseSettled.fire() }
        self.host = HostStatus(interfaces: interfaces)
        self.snapshot = SnapshotProjection.initial(isScanning: isScanning, host: host)
    }

    /// Whether scanning is on.
    public var scanning: Bool { isScanning }

    /// The current snapshot with its sequence number, read together.
    public func current() -> (snapshot: ScanSnapshot, sequence: UInt64) { (snapshot, sequence) }

    /// The number of devices in the snapshot (not counting the Wi-Fi networks).
    public var deviceCount: Int { snapshot.items(inSection: .networks)?.count(where: { $0.device != nil }) ?? 0 }

    /// The evil-twin baseline: the Wi-Fi networks this host connected to and those a person marked known.
    public var knownWiFiNetworks: [KnownWiFiNetwork] { wireless.known.all }

    /// This host's status as the `host` item shows it.
    public var hostStatus: HostStatus { host }

    /// The clock the store measures time on.
    public nonisolated var scanClock: ScanClock { clock }

    /// Applies a batch of inputs in order, diffs once, publishes the changeset if it is not empty, and answers the
    /// replies of the batch's commands.
    ///
    /// - Returns: What the owner must do now, with the batch's log lines.
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
        var answers: [@Sendable () -> Void] = []  // the edits' replies, in order
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
                gate.settle(reason: "time-limit")
            case .presenceCheck:
                break  // every batch checks the deadlines
            case .probeNoRoom(let counts):
                limits.neighbourNoRoom = counts
                limits.countsChanged = true
            case .edit(let edit):
                answers.append(devices.apply(edit, now: clock.now()))
            case .editWiFiTrust(let edit, let reply):
                let outcome = Result { () throws(WiFiTrustError) in try wireless.apply(edit) }
                if let reply { answers.append { reply(outcome) } }
            case .resyncDeadline(let generation):
                limits.countsChanged = true
                schedule.resyncDeadline(
                    generation: generation,
                    isRunning: host.sourceState.isRunning,
                    table: &table,
                    effects: &effects
                )
            case .withdrawalDeadline(let interface, let generation):
                limits.countsChanged = true
                schedule.withdrawalDeadline(
                    interface: interface,
                    generation: generation,
                    table: &table,
                    effects: &effects
                )
            }
        }
        if requestedScanning != wasScanning {
            isScanning = requestedScanning
            effects.browsing = requestedScanning
            effects.persistScanning = requestedScanning
            gate.scanningSwitched(on: requestedScanning, now: clock.now())
            if !requestedScanning {
                limits.neighbourNoRoom = [:]  // no probe rounds while scanning is off
                table.removeAll()
                schedule.reset()
                devices.removeAll()
                wireless.removeAll()
            }
            effects.logs.append(LogEntry(.scanningSwitched, ["enabled": "\(requestedScanning)"]))
        }
        if !isScanning { gate.settle(reason: "scanning-off") }
        if requestedScanning != wasScanning { limits.countsChanged = true }
        publish(makeSnapshot(windowExpired: expiredWindow, effects: &effects))
        // A held MAC address of a host known by its mDNS name: its records are awaited too (while Avahi runs).
        let awaitsKnownHosts = !gate.isSettled && host.sourceState.isRunning && devices.holdsKnownMDNSHosts
        switch gate.evaluate(now: clock.now(), isTableSettled: table.isSettled && !awaitsKnownHosts) {
        case .settled:
            publish(makeSnapshot(windowExpired: nil, effects: &effects))  // the neighbour-only devices held till now
        case .checkAfter(let delay):
            effects.checkAfter = delay
        case .waiting:
            break
        }
        requestDeadlineCheck(effects: &effects)
        if let reason = gate.takeSettledReason() {
            effects.logs.append(LogEntry(.initialBrowseSettled, ["reason": reason, "devices": "\(deviceCount)"]))
            initialBrowseSettled.fire()
        }
        for reply in replies { reply(sequence) }
        for answer in answers { answer() }
        return effects
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
    public var hasInitialBrowseSettled: Bool { gate.isSettled }

    /// The snapshot as it should be now: the current one, edited where something changed.
    private func makeSnapshot(windowExpired: Int?, effects: inout StoreEffects) -> ScanSnapshot {
        let time = clock.now()
        gate.releaseNeighbourHoldIfDue(
            now: time,
            isRunning: host.sourceState.isRunning,
            isTableSettled: table.isSettled
        )
        devices.holdsNeighbourOnlyDevices = gate.holdsNeighbourOnlyDevices
        let (changedHosts, settle) = table.takeChangedHosts(windowExpired: windowExpired)
        if let window = settle?.window { effects.settleDeadline = window }
        for (hostName, announced) in changedHosts {
            devices.updateMDNSHost(hostName: hostName, host: announced, now: time)
        }
        let (changed, events) = devices.takeChanges(now: time)
        // After the take: the devices it removed count (the Bluetooth cap empties when they go); likewise the
        // access points expired now.
        wireless.expire(now: time)
        limits.note(devices.bluetoothCap, in: \.bluetoothDevices)
        limits.note(wireless.fill, in: \.wifiNetworks)
        limits.refresh(&host, table: table, devices: devices, logs: &effects.logs)
        let wifi = wireless.takeChanges(now: time)
        if let recordNetworks, !wifi.records.isEmpty { recordNetworks(wifi.records) }
        let identityChanges = devices.takeIdentityChanges()  // taken even with no registry: they must not pile up
        let labelChanges = devices.takeLabelChanges()
        effects.questions += devices.takeQuestions()
        if let recordDevices {
            let records = DeviceRecords(
                identityChanges: identityChanges,
                labels: labelChanges,
                irks: devices.takeIRKChanges(),
                devices: changed.compactMap(\.item?.device).filter { $0.bluetooth?.isEphemeral != true },  // never kept
                departed: changed.filter { $0.item == nil }.map(\.id)
            )
            if !records.isEmpty { recordDevices(records) }
        }
        do {
            let (next, logs) = try SnapshotProjection.edit(
                snapshot,
                isScanning: isScanning,
                host: host,
                wirelessInterfaces: wireless.interfaceStatuses,
                changed: changed.map { ($0.id, $0.item) },
                changedNetworks: wifi.networks
            )
            if let recordNotices {
                let notices = events.compactMap(StoreNotice.init) + wifi.logs.compactMap(StoreNotice.init(wifi:))
                if !notices.isEmpty { recordNotices(notices) }
            }
            effects.logs += wifi.logs
            effects.logs += logs
            effects.logs += events.map { $0.logEntry(alertsNewDevices: alertsNewDevices) }
            return next
        } catch {
            // Our own edits of our own snapshot cannot fail; if they ever do, say so and keep the last good state.
            effects.logs.append(LogEntry(.snapshotEditFailed, ["error": "\(error)"]))
            return snapshot
        }
    }

    /// Asks for a check at the next deadline — a Wi-Fi access point expires, a device is judged again (a silent LAN
    /// device turns offline or goes, its host is asked again; a Bluetooth device turns offline, is admitted or goes) —
    /// unless one is asked for by then already.
    private func requestDeadlineCheck(effects: inout StoreEffects) {
        let now = clock.now()
        let deadlines = [wireless.nextExpiry, devices.nextDeadline()].compactMap { $0 }
        guard let due = deadlines.min() else { return }
        if let requested = checkRequested, requested > now, requested <= due { return }
        checkRequested = due
        let delay = max(due - now, .milliseconds(1))
        effects.checkAfter = min(effects.checkAfter ?? delay, delay)
    }

    private func publish(_ next: ScanSnapshot) {
        let changes = next.difference(from: snapshot)
        guard !changes.isEmpty else { return }
        snapshot = next
        sequence += 1
        let update = StoreUpdate(sequence: sequence, changes: changes)
        recordUpdate?(update)
        subscribers.yield(update)
    }
}
