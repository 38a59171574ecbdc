import Discovery
import MonitoringLog
import NetworkInterfaces
import PeerScanModel

/// Something for the store to do: a discovery event, a command, or a timer that fired.
public enum StoreInput: Sendable {
    /// An event from a discovery source.
    case discovery(DiscoveryEvent)
    /// Switch scanning on or off; `reply` gets the sequence number after the change.
    case setScanning(Bool, reply: (@Sendable (UInt64) -> Void)?)
    /// The grace period of resync `generation` is over: remove what was not seen again.
    case resyncDeadline(generation: Int)
    /// The grace period of an interface's withdrawal (its `generation`) is over: remove what was learnt there and not
    /// reported again (see ``MDNSEvent/interfaceWithdrawn(_:)``).
    case withdrawalDeadline(interface: String, generation: Int)
    /// Settle window `window` is over: publish the devices held back in it as they are.
    case settleDeadline(window: Int)
    /// The time allowed for the initial browse is over: serve the snapshot as it is.
    case initialBrowseDeadline
    /// Time passed (the store asked for it with ``StoreEffects/checkAfter``): a device may be offline, forgotten or
    /// due a question now, a Wi-Fi access point expired, the initial browse's quiet period over.
    case presenceCheck
    /// The datagrams of the last probe round the kernel had no room for (`ENOBUFS`: its neighbour table at
    /// `gc_thresh3`), by protocol (a protocol with none absent): the `neighbour-table` limit is reached while any is
    /// counted (``SystemLimitCheck``).
    case probeNoRoom([IPProtocol: Int])
    /// A person's edit of the devices, with its reply (``DeviceTable/apply(_:now:)``).
    case edit(DeviceEdit)
    /// A person's change of the Wi-Fi evil-twin baseline (``WirelessTable/apply(_:)-(WiFiTrustEdit)``); `reply` gets
    /// the SSID's known networks after it.
    case editWiFiTrust(
        WiFiTrustEdit,
        reply: (@Sendable (Result<[KnownWiFiNetwork], WiFiTrustError>) -> Void)?
    )
}

extension StoreInput {
    /// Queues a command with `submit` and waits for its reply: the one way to ask the store something and wait.
    ///
    /// - Parameters:
    ///   - make: Builds the command around its reply (e.g. `{ .edit(.forget(ids, reply: $0)) }`).
    ///   - submit: Queues a command; returns `false` when nothing is queued any more (the scan service has stopped).
    /// - Returns: The reply, once the command's change is in the snapshot; `nil` if the command was not queued.
    public static func request<Reply: Sendable>(
        _ make: (@escaping @Sendable (Reply) -> Void) -> StoreInput,
        submit: (StoreInput) -> Bool
    ) async -> Reply? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Reply?, Never>) in
            if !submit(make { continuation.resume(returning: $0) }) { continuation.resume(returning: nil) }
        }
    }
}

/// Where the store reports what it learnt and published, on its executor (each must not block).
public struct StoreRecorders: Sendable {
    /// Called with what each batch taught about devices, before the changeset is published (the registry's intake).
    public var devices: (@Sendable (DeviceRecords) -> Void)?
    /// Called with what each batch taught about Wi-Fi networks, like ``devices``.
    public var networks: (@Sendable (WirelessRecords) -> Void)?
    /// Called with every update as it is published, before any subscriber sees it — so that, once
    /// ``SnapshotStore/sequence`` reads `n`, it has had every update up to `n` (a history of recent changes that
    /// clients resume from).
    public var updates: (@Sendable (StoreUpdate) -> Void)?
    /// Called with what each batch decided beyond its items' changes (``StoreNotice``), before its changeset is
    /// published.
    public var notices: (@Sendable ([StoreNotice]) -> Void)?

    /// Creates the recorders; by default none.
    public init(
        devices: (@Sendable (DeviceRecords) -> Void)? = nil,
        networks: (@Sendable (WirelessRecords) -> Void)? = nil,
        updates: (@Sendable (StoreUpdate) -> Void)? = nil,
        notices: (@Sendable ([StoreNotice]) -> Void)? = nil
    ) {
        self.devices = devices
        self.networks = networks
        self.updates = updates
        self.notices = notices
    }
}

/// What the store asks its owner to do after a batch, outside the actor: I/O, timers and log lines.
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
    /// Send ``StoreInput/presenceCheck`` after this long: the store's next deadline (a device judged again, a Wi-Fi
    /// access point's expiry, the initial browse's quiet period) is then.
    public var checkAfter: Duration?
    /// The batch's log lines, in order (the monitoring log: devices, presence, resyncs).
    public var logs: [LogEntry]
    /// Ask the sources these questions (``DiscoverySource/ask(_:)``), in order.
    public var questions: [HostQuestion]

    /// No effects.
    public init(
        browsing: Bool? = nil,
        persistScanning: Bool? = nil,
        resyncDeadline: Int? = nil,
        settleDeadline: Int? = nil,
        withdrawalDeadlines: [String: Int] = [:],
        checkAfter: Duration? = nil,
        logs: [LogEntry] = [],
        questions: [HostQuestion] = []
    ) {
        self.browsing = browsing
        self.persistScanning = persistScanning
        self.resyncDeadline = resyncDeadline
        self.settleDeadline = settleDeadline
        self.withdrawalDeadlines = withdrawalDeadlines
        self.checkAfter = checkAfter
        self.logs = logs
        self.questions = questions
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
