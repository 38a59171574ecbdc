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
    /// Time passed: devices that stopped answering may be offline, or forgotten, now.
    case presenceCheck
    /// The datagrams of the last probe round the kernel had no room for (`ENOBUFS`: its neighbour table at
    /// `gc_thresh3`), by protocol (a protocol with none absent): the `neighbour-table` limit is reached while any is
    /// counted (``SystemLimitCheck``).
    case probeNoRoom([IPProtocol: Int])
    /// Forget devices and their keys (``DeviceTable/forget(_:now:)``); `reply` gets whether each was known.
    case forget([DeviceID], reply: (@Sendable ([Bool]) -> Void)?)
    /// Change a device's label (``DeviceTable/setLabel(_:of:)``); `reply` gets the label now, `nil` for an unknown
    /// device.
    case setLabel(DeviceID, DeviceLabelEdit, reply: (@Sendable (DeviceLabel?) -> Void)?)
    /// A person's merge of `others` into the device (``DeviceTable/merge(_:into:)``); `reply` gets the outcome.
    case merge(DeviceID, others: [DeviceID], reply: (@Sendable (Result<Void, DeviceEditError>) -> Void)?)
    /// A person's split of a key off the device (``DeviceTable/split(_:from:)``); `reply` gets the key's new
    /// identifier.
    case split(DeviceID, key: IdentityKey, reply: (@Sendable (Result<DeviceID, DeviceEditError>) -> Void)?)
    /// A person's change of the Wi-Fi evil-twin baseline (``WirelessTable/apply(_:)-(WiFiTrustEdit)``); `reply` gets
    /// the SSID's known networks after it.
    case editWiFiTrust(
        WiFiTrustEdit,
        reply: (@Sendable (Result<[KnownWiFiNetwork], WiFiTrustError>) -> Void)?
    )
    /// Bind a Bluetooth IRK to the device, or remove its key (`nil`) (``DeviceTable/setIRK(_:for:)``); `reply` gets
    /// the outcome.
    case setIRK(DeviceID, IdentityResolvingKey?, reply: (@Sendable (Result<Void, DeviceEditError>) -> Void)?)
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
    /// Send ``StoreInput/presenceCheck`` after this long: what the store waits for (the initial browse's quiet
    /// period) may be over by then.
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
