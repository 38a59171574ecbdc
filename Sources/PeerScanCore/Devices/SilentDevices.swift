// The device table's silent LAN devices: those published that do not answer now, and when each last answered, so
// that every take checks their deadlines (offline, forgotten). A value the table owns; publishing in
// DeviceTable+Publishing.swift notes them, the take in DeviceTable.swift checks them.

import PeerScanModel

/// The published LAN devices that do not answer now and when each last answered; their deadlines are checked on every
/// take. A Bluetooth device is never here: its deadlines are its own (``DeadlineQueue``).
///
/// ## Performance
/// Noting and removing are O(1); ``ids`` is the devices silent now, so a take's check is O(s) for s of them.
struct SilentDevices: Sendable {
    /// When devices go offline and are forgotten.
    let presence: DeviceTable.Presence
    private var lastAnswers: [DeviceID: Duration] = [:]

    /// Creates an empty record judged by `presence`.
    init(presence: DeviceTable.Presence) { self.presence = presence }

    /// The devices silent now, in no order.
    var ids: Dictionary<DeviceID, Duration>.Keys { lastAnswers.keys }

    /// Whether `id` is silent now.
    func contains(_ id: DeviceID) -> Bool { lastAnswers[id] != nil }

    /// Notes `id` as published now: silent, last answering at `lastAnswer`, unless `isAnswering`.
    mutating func note(_ id: DeviceID, isAnswering: Bool, lastAnswer: Duration) {
        lastAnswers[id] = isAnswering ? nil : lastAnswer
    }

    /// Forgets `id` (it is no longer published).
    mutating func remove(_ id: DeviceID) { lastAnswers[id] = nil }

    /// Whether the silent device `id` is past its deadline at `now`: ``DeviceTable/Presence/offlineAfter`` after it
    /// last answered while it is online (`isOnline`), ``DeviceTable/Presence/forgetAfter`` once it is offline. A
    /// device not silent is not.
    func isPastDeadline(_ id: DeviceID, isOnline: Bool, now: Duration) -> Bool {
        guard let last = lastAnswers[id] else { return false }
        return now >= last + (isOnline ? presence.offlineAfter : presence.forgetAfter)
    }

    /// Forgets every device.
    mutating func removeAll() { lastAnswers = [:] }
}
