import Discovery
import PeerScanModel

/// Merges what the sources know into devices, one per physical host, and keeps their presence.
///
/// ## Merging
/// - An mDNS host (an ``AnnouncedHost`` the ``MDNSHostTable`` derived from its services) is one device. The MAC
///   addresses its addresses resolve to in the neighbour table are its own, and so are the other addresses those MAC
///   addresses answer for (e.g. the IPv6 addresses mDNS did not publish).
/// - A MAC address that no mDNS host's address resolves to is a device of its own, with no host name: every
///   address that resolves to it is its.
/// - Identifiers come from ``identities`` (see ``DeviceIdentities`` for the rules): a device keeps the first one it
///   got. When a MAC-only device's host starts announcing mDNS, the host takes the MAC-only device's identifier: one
///   item, updated. When a host already known by its name turns out to own a MAC-only device's MAC address, the
///   MAC-only item is deleted and its keys join the host's (``Event/merged(_:into:)``).
/// - A MAC address whose key ``identities`` binds to an mDNS host's device (the registry knows them as one: a merge
///   or a MAC-only device that started announcing mDNS, in this run or an earlier one) is that host's while no other
///   host claims its addresses, even before the host's announced addresses resolve to it.
/// - An address belongs to the MAC address it last resolved to: when another MAC address answers for it, it moves
///   (``Event/addressConflict(address:macAddress:previousMACAddress:)`` if the previous one answered within
///   ``Presence/conflictWindow``, else ``Event/macChanged(address:macAddress:previousMACAddress:device:)``).
/// - A neighbour entry teaches a MAC address only once it answers (see ``isAnswering(_:now:)``): an entry the
///   kernel has not verified lately is not taken as a device.
/// - An address stays its MAC address's while the host is silent (an offline device keeps what it was known by), but
///   leaves it when its entry failed and the MAC address then answers on another address: the host dropped it.
///
/// ## Presence
/// Liveness comes from the host. A device with a MAC address (an address on a directly connected subnet that the
/// kernel resolved) *answers* while the kernel holds one of its MAC addresses' entries as answering; mDNS records that
/// Avahi still caches are not an answer (a host that leaves without goodbyes keeps them for minutes). When such a
/// device with mDNS records stops answering, the table asks its host once (a ``HostQuestion``, see
/// ``takeQuestions()``), and an answer counts as the host answering then. A device with no MAC address — an mDNS host
/// the kernel never resolved (a routed subnet, or the neighbour table not followed) — answers while it has records.
///
/// A device is ``Device/online`` while it answers and for ``Presence/offlineAfter`` after it last did (the kernel's
/// last confirmation, the last answer to a question, the moment its records appeared, or, without a MAC address, the
/// moment its last record went), and is forgotten (removed) once it has not answered for ``Presence/forgetAfter``.
/// An offline device keeps its services as last known. With both zero, a device goes as soon as it stops answering.
///
/// Time is the caller's monotonic clock, passed to every call that needs it: the table does no I/O.
public struct DeviceTable: Sendable {
    /// How presence is judged.
    public struct Presence: Sendable, Equatable {
        /// How long after it last answered a device turns offline.
        public var offlineAfter: Duration
        /// How long after it last answered an offline device is forgotten (at least ``offlineAfter``).
        public var forgetAfter: Duration
        /// When another MAC address answers for an address whose MAC address answered within this time, the two
        /// claim it at once: an address conflict (else the address moved: the MAC changed).
        public var conflictWindow: Duration
        /// How long an entry that left the reachable state (stale, delay, probe) still counts as answering, whatever
        /// its confirmation's age: until the kernel has verified it (the next probe round's traffic, then the kernel's
        /// delay and probes). Zero: such an entry counts only by its confirmation.
        public var staleGrace: Duration

        /// Creates a presence policy.
        public init(
            offlineAfter: Duration,
            forgetAfter: Duration,
            conflictWindow: Duration = .seconds(60),
            staleGrace: Duration = .zero
        ) {
            self.offlineAfter = offlineAfter
            self.forgetAfter = max(forgetAfter, offlineAfter)
            self.conflictWindow = conflictWindow
            self.staleGrace = staleGrace
        }

        /// Devices go as soon as they stop answering (mDNS-browser behaviour).
        public static let immediate = Presence(offlineAfter: .zero, forgetAfter: .zero)
    }

    /// Something worth a log line, beyond the item changes.
    public enum Event: Hashable, Sendable {
        /// A device seen for the first time (since it was last forgotten).
        case appeared(Device)
        /// A device seen before (in the registry, or before scanning was switched off) is back.
        case returned(Device)
        /// A device answers again.
        case online(Device)
        /// A device stopped answering ``Presence/offlineAfter`` ago (its ``Device/presenceReason`` says what was asked
        /// and not answered).
        case offline(Device)
        /// A device that had not answered for ``Presence/forgetAfter`` was removed.
        case forgotten(Device)
        /// A MAC-only device turned out to be an mDNS host's, or a person merged two devices: it was removed in favour
        /// of the device `into`.
        case merged(Device, into: DeviceID)
        /// A person split `key` off the device `from`: it is the device `into` now.
        case split(IdentityKey, from: DeviceID, into: DeviceID)
        /// One address is claimed by two MAC addresses within the conflict window; `isImportant` if the device of
        /// either is important.
        case addressConflict(address: String, macAddress: String, previousMACAddress: String, isImportant: Bool = false)
        /// A known address resolves to another MAC address now (the previous one had gone quiet).
        case macChanged(address: String, macAddress: String, previousMACAddress: String, device: DeviceID?)
        /// The system's libcrypto could not run AES-128 to resolve a Bluetooth private address against the known
        /// IRKs: the address is a device of its own (logged once per run).
        case bluetoothAddressUnresolved(address: String, error: String)
    }

    /// A device that changed: its item as it is now, `nil` if it was removed.
    public struct Change: Sendable {
        /// The device's identifier.
        public var id: DeviceID
        /// The device's item as published (the table's box: the snapshot holds the same one), or `nil`.
        public var item: ScanItem?
        /// The device as published, or `nil` if it was removed.
        public var device: Device? { item?.device }
    }

    /// What a published device was derived from.
    enum Origin: Hashable, Sendable {
        case host(String)
        case mac(String)
        case bluetooth(BluetoothIdentity)

        /// Whether a Bluetooth identity derives the device (a LAN origin takes a merged device over from it).
        var isBluetooth: Bool { if case .bluetooth = self { true } else { false } }
    }

    /// An mDNS host: the parts of the ``AnnouncedHost`` the mDNS host table reports that derivation uses, and its
    /// presence.
    struct MDNSHost: Sendable {
        /// As the mDNS host table last reported them; the services are emptied once it has none left.
        var displayName: String?
        var addresses: [String]
        var interfaces: [String]
        var services: [DeviceService]
        var isPresent: Bool
        /// When its last service went (meaningful while not present).
        var lastSeen: Duration
        /// When it last became present (records appearing are a sign of the host, once).
        var appearedAt: Duration
        /// When it last answered a question, and when it was last asked (`nil`: not since its kernel entries last
        /// answered).
        var answeredAt: Duration?
        var askedAt: Duration?
    }

    // The state below is internal for the extensions in DeviceTable+*.swift, and each part holds its own state
    // privately, with its own tests (``PublishedDevices``, ``NeighbourAddressBook``, ``MDNSHostBook``,
    // ``BluetoothAdvertisers``, ``SilentDevices``, ``PendingSplits``, ``DerivationQueue``, ``DeviceOutbox``,
    // ``DeviceIdentities``, ``DeviceLabels``): the table only sequences them.
    let presence: Presence
    let vendorOf: @Sendable (String) -> String?
    /// The Bluetooth advertisers and their settings (DeviceTable+Bluetooth.swift).
    var bluetooth: BluetoothAdvertisers

    /// The mDNS hosts as the mDNS host table last reported them, and which announce each address.
    var mdnsHosts = MDNSHostBook()
    /// What the kernel's neighbour table taught: which MAC address each address answers with, and when they answered.
    var addressBook: NeighbourAddressBook

    /// Every key a device was known by, and its identifier.
    public internal(set) var identities: DeviceIdentities
    /// What people said about devices: put on every device published (``Device/labelled(_:)``).
    public internal(set) var labels: DeviceLabels

    /// Each published device's item as published — the snapshot's own box (``ScanItem/device(_:)`` is `indirect`), so
    /// the table and the snapshot share one copy of its fields (``takeChanges(now:)`` hands the items on) — and the
    /// origin that derives it.
    var published = PublishedDevices()
    /// Published LAN devices that do not answer now, when each last answered, and when each is judged again.
    var silent: SilentDevices
    /// What a person's splits leave for the next take: devices out of ``published`` until their origins derive them
    /// again, and the new devices of the keys split off.
    var splits = PendingSplits()

    /// Whether new MAC-only devices are held back (while peerscand's first mDNS browse settles: the mDNS host that
    /// claims a MAC address may not be known yet, and a MAC-only device published meanwhile would be a false
    /// `new device`, merged a moment later). Clearing it publishes what was held.
    public var holdsNeighbourOnlyDevices: Bool {
        get { derivations.holdsNewMACs }
        set { derivations.holdsNewMACs = newValue }
    }

    /// The mDNS hosts and MAC addresses the next take derives again, and the MAC-only devices held back.
    var derivations = DerivationQueue()
    /// What the next takes hand over: item changes, events, questions.
    var outbox = DeviceOutbox()

    /// Creates an empty table.
    /// - Parameters:
    ///   - presence: When devices go offline and are forgotten.
    ///   - vendorOf: The organization behind a MAC address, or `nil`.
    ///   - identities: The identifiers known from before (the registry's).
    ///   - labels: The labels known from before (the registry's).
    ///   - bluetooth: How Bluetooth advertisers are judged, and the IRKs known from before.
    public init(
        presence: Presence = .immediate,
        vendorOf: @escaping @Sendable (String) -> String? = { _ in nil },
        identities: DeviceIdentities = DeviceIdentities(),
        labels: DeviceLabels = DeviceLabels(),
        bluetooth: BluetoothSettings = BluetoothSettings()
    ) {
        self.presence = presence
        self.vendorOf = vendorOf
        self.bluetooth = BluetoothAdvertisers(settings: bluetooth)
        self.addressBook = NeighbourAddressBook(presence: presence)
        self.silent = SilentDevices(presence: presence)
        self.identities = identities
        self.labels = labels
    }

    /// The identifier changes since the last take, for the registry.
    public mutating func takeIdentityChanges() -> [IdentityChange] { identities.takeChanges() }

    /// The label changes since the last take, for the registry (``DeviceLabel/none``: cleared).
    public mutating func takeLabelChanges() -> [DeviceID: DeviceLabel] { labels.takeChanges() }

    /// The number of devices published.
    public var deviceCount: Int { published.count }

    // MARK: Inputs

    /// An mDNS host as the mDNS host table reports it now; `nil` when its last service went.
    /// - Complexity: O(a) for a addresses of the host.
    public mutating func updateMDNSHost(hostName: String, host announced: AnnouncedHost?, now: Duration) {
        guard let dropped = mdnsHosts.update(hostName: hostName, host: announced, now: now) else { return }
        for address in dropped {
            if let mac = addressBook.macAddress(of: address) { markDirty(mac: mac) }
        }
        markDirty(host: hostName)
    }

    // MARK: Output

    /// The devices that changed since the last take, each as its item is now (`nil` if removed), in order of
    /// identifier, and the events to log. Derives again the devices whose deadline passed (``nextDeadline()``). Each item
    /// is the box the table keeps, which the snapshot should hold too, so that the device's fields are stored once.
    /// - Complexity: O(d + k log s) for d devices touched since the last take, k of the s with a deadline due.
    public mutating func takeChanges(now: Duration) -> (changes: [Change], events: [Event]) {
        for id in silent.popDue(now: now) {
            if let origin = published.origin(of: id) { markForDerivation(origin) }
        }
        bluetooth.markDue(now: now)
        while !derivations.isEmpty || bluetooth.hasMarked {
            for hostName in derivations.markedHosts {
                derivations.unmark(host: hostName)
                derive(hostName: hostName, now: now)
            }
            for mac in derivations.markedMACs {
                derivations.unmark(mac: mac)
                derive(mac: mac, now: now)
            }
            while let identity = bluetooth.popMarked() { derive(bluetooth: identity, now: now) }
        }
        defer { splits.removeAll() }  // a device displaced and not published again: its removal stands
        return outbox.takeChanges()
    }

    /// The earliest time a device is judged again, if any: a silent LAN device turns offline, is forgotten or its mDNS
    /// host is asked again; a Bluetooth device turns offline, is admitted or goes. The store asks to be woken then (no
    /// device changes by time alone otherwise).
    /// - Complexity: O(log d) for d devices with a deadline (amortized).
    public mutating func nextDeadline() -> Duration? {
        [silent.nextDeadline(), bluetooth.nextDeadline()].compactMap { $0 }.min()
    }

    /// Forgets everything (scanning switched off): every device goes now.
    public mutating func removeAll() {
        outbox.addRemovals(of: published.removeAll())
        silent.removeAll()
        splits.removeAll()
        mdnsHosts.removeAll()
        addressBook.removeAll()
        derivations.removeAll()
        outbox.removeQuestions()
        bluetooth.removeAll()
    }

}
