import DequeModule
import MQTTClient
import PeerScanModel

/// What the broker should hold of a scanner, kept in step with its snapshot: the retained status, device and
/// discovery topics, and the `events` stream.
///
/// The mirror does no I/O. Its owner feeds it the store's updates and the connection's events, publishes what
/// ``takeMessages()`` returns, and reports each message id back (``sent(messageID:)``); the broker's
/// acknowledgements come back through ``acknowledged(messageID:)``.
///
/// Memory stays bounded whatever the broker does: a device topic is published from the current snapshot when its
/// turn comes, so a device that changed a hundred times while the broker was slow or absent is published once, and
/// at most ``Settings/maximumInFlight`` messages wait for the broker's acknowledgement. `events` messages are queued
/// up to ``Settings/maximumQueuedEvents``; beyond that they are dropped and the stream starts over with a snapshot
/// message, as a slow Varlink client is resynchronized.
///
/// On every (re)connection the whole state is published again — the broker may have restarted without its retained
/// messages — and the broker's retained device and discovery topics of this scanner, which come back on
/// subscription, are compared with the snapshot. A device's topics are deleted when the mirror saw it leave the list
/// while scanning was on (a departure, a forget, a merge), or when the snapshot lacks it and the registry does not
/// remember it (``isRemembered``: forgotten while the daemon was down). A device the snapshot lacks otherwise — not
/// found again yet after a restart, or scanning is off — keeps its topics, its device topic showing it offline, so
/// that a consumer keeps what it built on them (Home Assistant its entity and what the user changed). A device is
/// deleted discovery config first, so that a consumer drops it before its state topic empties (Home Assistant would
/// otherwise render its state from an empty payload).
public struct MQTTMirror: Sendable {
    /// How the mirror publishes.
    public struct Settings: Sendable, Equatable {
        /// The topics.
        public var topics: MQTTTopics
        /// Whether Home Assistant discovery configs are published.
        public var homeAssistant: Bool
        /// The most messages published and not acknowledged yet.
        public var maximumInFlight: Int
        /// The most `events` messages waiting to be published.
        public var maximumQueuedEvents: Int

        /// Creates settings.
        public init(
            topics: MQTTTopics,
            homeAssistant: Bool = false,
            maximumInFlight: Int = 256,
            maximumQueuedEvents: Int = 1024
        ) {
            self.topics = topics
            self.homeAssistant = homeAssistant
            self.maximumInFlight = maximumInFlight
            self.maximumQueuedEvents = maximumQueuedEvents
        }
    }

    /// What a device's topics hold on the broker, as far as the mirror knows.
    private struct Retained: Equatable, Sendable {
        /// The device topic's payload; `nil` if none or unknown-but-present (see `stale`).
        var device: [UInt8]?
        /// The discovery config's payload.
        var config: [UInt8]?
    }

    /// The settings.
    public let settings: Settings
    /// The snapshot the mirror publishes.
    public private(set) var snapshot: ScanSnapshot
    /// The snapshot's sequence number.
    public private(set) var sequence: UInt64
    /// Whether the connection is up.
    public private(set) var isConnected = false
    /// How many `events` messages were dropped (the queue was full, or the broker absent) since the start.
    public var droppedEvents: Int { events.dropped }

    private var devices: [DeviceID: Device]
    /// Whether the registry remembers a device: its topics stay while the snapshot lacks it.
    private let isRemembered: @Sendable (DeviceID) -> Bool
    /// Devices seen leaving the list while scanning was on, whose topics are not deleted yet.
    private var departed = Set<DeviceID>()
    /// What the broker holds, per device: empty after a (re)connection until published or learned from it.
    private var retained: [DeviceID: Retained] = [:]
    /// Devices whose topics may differ from what they should hold, in the order they changed.
    private var dirty = Deque<DeviceID>()
    private var dirtySet = Set<DeviceID>()
    /// The `events` stream's messages waiting to be published.
    private var events: EventsStream
    private var statusPending = false
    private var inFlight = Set<Int32>()
    /// The Wi-Fi networks' topics: the payloads they should hold, what the broker holds, and those to compare.
    var wifi = WiFiTopics()

    /// Creates a mirror of `snapshot`, disconnected.
    ///
    /// - Parameters:
    ///   - isRemembered: Whether the registry remembers a device (called for devices the snapshot lacks whose topics
    ///     the broker holds); by default none is, and such topics are deleted.
    public init(
        settings: Settings,
        snapshot: ScanSnapshot,
        sequence: UInt64,
        isRemembered: @escaping @Sendable (DeviceID) -> Bool = { _ in false }
    ) {
        self.settings = settings
        self.snapshot = snapshot
        self.sequence = sequence
        self.devices = Self.devices(of: snapshot)
        self.isRemembered = isRemembered
        self.events = EventsStream(topic: settings.topics.events, maximumQueued: settings.maximumQueuedEvents)
        self.wifi.reset(to: snapshot)
    }

    /// The topic filters to subscribe to after connecting: the scanner's discovery and device topics, whose retained
    /// messages tell what the broker holds from before. Discovery configs first: the broker sends each
    /// subscription's retained messages in turn, so a device to delete has its config deleted before its state topic.
    public var subscriptions: [String] {
        [settings.topics.allDiscoveryConfigs, settings.topics.allDevices, settings.topics.allWiFiNetworks]
    }

    /// Whether every device topic is as it should be and nothing waits for the broker.
    public var isSettled: Bool {
        isConnected && dirty.isEmpty && wifi.dirty.isEmpty && events.isEmpty && !statusPending && inFlight.isEmpty
    }

    /// How many messages wait for the broker's acknowledgement.
    public var inFlightCount: Int { inFlight.count }

    // MARK: - Inputs

    /// The connection is up (again): publish the status, a snapshot on `events`, and every device.
    public mutating func connected() {
        isConnected = true
        inFlight = []
        retained = [:]
        statusPending = true
        events.restart()
        markAllDirty()
        wifi.connected()
    }

    /// The connection is down: nothing is published until it is up again.
    public mutating func disconnected() {
        isConnected = false
        inFlight = []
        events.dropAll()
    }

    /// A retained message on one of ``subscriptions``: a device or discovery topic the broker holds from before.
    /// One that should not be there (its device is gone, or discovery is off) is deleted.
    public mutating func received(_ message: MQTTMessage) {
        if let id = settings.topics.wifiNetworkID(inTopic: message.topic) {
            if message.retain, !message.payload.isEmpty { wifi.received(message.payload, for: id) }
            return
        }
        guard message.retain, !message.payload.isEmpty, let id = settings.topics.deviceID(inTopic: message.topic)
        else { return }
        var entry = retained[id] ?? Retained()
        if message.topic == settings.topics.device(id) {
            entry.device = message.payload
        } else {
            entry.config = message.payload
        }
        retained[id] = entry
        markDirty(id)
    }

    /// A changeset of the store.
    ///
    /// - Complexity: O(c) for a changeset of c item updates only (the common case: a device changed), else O(n + c
    ///   log c) for n items.
    public mutating func apply(_ changes: ScanChangeset, sequence: UInt64) {
        let onlyUpdates =
            changes.sectionDeletes.isEmpty && changes.sectionInserts.isEmpty && changes.sectionMoves.isEmpty
            && changes.sectionReloads.isEmpty && changes.itemDeletes.isEmpty && changes.itemInserts.isEmpty
            && changes.itemMoves.isEmpty
        do {
            if onlyUpdates {
                try snapshot.updateItems(changes.itemUpdates.map(\.item))  // in place: no walk over every item
            } else {
                snapshot = try snapshot.applying(changes)
            }
        } catch {
            // Cannot happen with the store's own changesets; start over from what the store says instead.
            events.requireSnapshot()
            return
        }
        self.sequence = sequence
        let hasSectionChanges =
            !changes.sectionDeletes.isEmpty || !changes.sectionInserts.isEmpty || !changes.sectionReloads.isEmpty
        if hasSectionChanges {
            let old = devices
            devices = Self.devices(of: snapshot)
            noteDepartures(from: old)
            for id in old.keys { markDirty(id) }
            markAllDirty()
        } else {
            // Only what changed: O(c), not a walk over every device.
            for delete in changes.itemDeletes {
                if devices.removeValue(forKey: delete.id) != nil { departed.insert(delete.id) }
                markDirty(delete.id)
            }
            for insert in changes.itemInserts {
                if let device = insert.item.device {
                    devices[device.id] = device
                    departed.remove(device.id)
                }
                markDirty(insert.item.id)
            }
            for update in changes.itemUpdates {
                if let device = update.item.device { devices[device.id] = device }
                markDirty(update.item.id)
            }
        }
        if hasSectionChanges {
            wifi.reset(to: snapshot)
        } else {
            wifi.apply(changes)
        }
        events.queue(MQTTPayloads.changeset(changes, sequence: sequence), isConnected: isConnected)
    }

    /// The store's snapshot after the mirror fell behind it (its queue dropped updates): every device is compared
    /// again, and `events` starts over with a snapshot.
    public mutating func resync(to snapshot: ScanSnapshot, sequence: UInt64) {
        let old = devices
        self.snapshot = snapshot
        self.sequence = sequence
        devices = Self.devices(of: snapshot)
        wifi.reset(to: snapshot)
        noteDepartures(from: old)  // left in the updates the mirror missed
        for id in old.keys { markDirty(id) }
        markAllDirty()
        events.dropAll()
    }

    /// A message was handed to the connection with this id.
    public mutating func sent(messageID: Int32) {
        inFlight.insert(messageID)
    }

    /// The broker acknowledged a message.
    public mutating func acknowledged(messageID: Int32) {
        inFlight.remove(messageID)
    }

    // MARK: - Output

    /// The messages to publish now, in order: at most what ``Settings/maximumInFlight`` leaves room for; none while
    /// disconnected.
    ///
    /// - Complexity: O(k) for k messages returned, plus the dirty devices that turn out to be up to date.
    public mutating func takeMessages() -> [MQTTMessage] {
        guard isConnected else { return [] }
        var room = settings.maximumInFlight - inFlight.count
        var messages: [MQTTMessage] = []
        if statusPending, room > 0 {
            statusPending = false
            messages.append(MQTTMessage(topic: settings.topics.status, payload: Array("online".utf8), retain: true))
            room -= 1
        }
        let streamed = events.takeMessages(room: room) { MQTTPayloads.snapshot(snapshot, sequence: sequence) }
        messages += streamed
        room -= streamed.count
        while room > 0, let id = dirty.popFirst() {
            dirtySet.remove(id)
            let wanted = wantedRetained(id)
            var have = retained[id] ?? Retained()
            // Deleted config first (a consumer drops the device before its state topic empties); created or changed
            // device topic first (the state is there when a consumer subscribes to it).
            let configFirst = wanted.config == nil && have.config != nil
            var topics: [MQTTMessage] = []
            if have.device != wanted.device {
                topics.append(
                    MQTTMessage(topic: settings.topics.device(id), payload: wanted.device ?? [], retain: true)
                )
                have.device = wanted.device
            }
            if have.config != wanted.config {
                let config = MQTTMessage(
                    topic: settings.topics.discoveryConfig(id),
                    payload: wanted.config ?? [],
                    retain: true
                )
                if configFirst { topics.insert(config, at: 0) } else { topics.append(config) }
                have.config = wanted.config
            }
            messages += topics
            room -= topics.count
            retained[id] = have.device == nil && have.config == nil ? nil : have
            if wanted.device == nil && wanted.config == nil { departed.remove(id) }
        }
        messages += wifi.takeMessages(room: room, topics: settings.topics)
        return messages
    }

    /// The message to publish before a clean disconnect: the status `offline`.
    public var offlineMessage: MQTTMessage { Self.offlineMessage(topics: settings.topics) }

    /// The status `offline` of a scanner: published before a clean disconnect, and the broker's last will.
    public static func offlineMessage(topics: MQTTTopics) -> MQTTMessage {
        MQTTMessage(topic: topics.status, payload: Array("offline".utf8), retain: true)
    }

    // MARK: - Helpers

    private func wantedRetained(_ id: DeviceID) -> Retained {
        guard let device = devices[id] else {
            // Not in the snapshot: kept, shown offline, while the registry remembers it — unless it was seen leaving.
            guard let have = retained[id], !departed.contains(id), isRemembered(id) else { return Retained() }
            return Retained(
                device: have.device.map { MQTTPayloads.offline(devicePayload: $0) ?? $0 },
                config: settings.homeAssistant ? have.config : nil
            )
        }
        // An ephemeral Bluetooth device (a private address no IRK resolves, or an advertiser not admitted yet) is
        // listed while heard only: anything in radio range can be one, so it is not mirrored.
        guard device.bluetooth?.isEphemeral != true else { return Retained() }
        return Retained(
            device: MQTTPayloads.device(device),
            config: settings.homeAssistant ? MQTTPayloads.homeAssistantConfig(device, topics: settings.topics) : nil
        )
    }

    /// The devices of `old` that the list lacks now left it, unless scanning is off (then they are only not listed);
    /// those listed again are back.
    private mutating func noteDepartures(from old: [DeviceID: Device]) {
        if snapshot.contains(section: .networks) { departed.formUnion(old.keys.filter { devices[$0] == nil }) }
        departed.subtract(devices.keys)
    }

    private mutating func markDirty(_ id: DeviceID) {
        if dirtySet.insert(id).inserted { dirty.append(id) }
    }

    private mutating func markAllDirty() {
        for id in snapshot.itemIdentifiers(inSection: .networks) ?? [] { markDirty(id) }
    }

    private static func devices(of snapshot: ScanSnapshot) -> [DeviceID: Device] {
        var devices: [DeviceID: Device] = [:]
        for item in snapshot.items(inSection: .networks) ?? [] {
            if let device = item.device { devices[device.id] = device }
        }
        return devices
    }
}
