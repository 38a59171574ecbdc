// The device table's silent LAN devices: those published that do not answer now, when each last answered, and when
// each is judged again (offline, forgotten, its mDNS host asked again). A value the table owns; the one derivation in
// DeviceTable+Publishing.swift notes them, the take in DeviceTable.swift derives again those due.

import PeerScanModel

/// The published LAN devices that do not answer now, and when each is next due to be derived again: the first of its
/// deadlines still ahead — ``DeviceTable/Presence/offlineAfter`` after it last answered while it is online,
/// ``DeviceTable/Presence/forgetAfter`` after that once it is offline, and when its mDNS host is due another question.
/// A Bluetooth device is never here: its deadlines are the advertisers' own.
///
/// A deadline already past when noted is not kept: the derivation that noted it found the device online for another
/// reason (a Bluetooth advertiser merged with it is heard; that advertiser's own deadline derives it again) or its
/// question not asked (the next event of its host does), so taking it again would change nothing.
///
/// ## Performance
/// Noting and removing are O(log s) for s silent devices; a take pays O(log s) for each device due, not O(s).
struct SilentDevices: Sendable {
    /// When devices go offline and are forgotten.
    let presence: DeviceTable.Presence
    private var lastAnswers: [DeviceID: Duration] = [:]
    private var deadlines = DeadlineQueue<DeviceID>()

    /// Creates an empty record judged by `presence`.
    init(presence: DeviceTable.Presence) { self.presence = presence }

    /// The number of devices silent now.
    var count: Int { lastAnswers.count }

    /// Whether `id` is silent now.
    func contains(_ id: DeviceID) -> Bool { lastAnswers[id] != nil }

    /// Notes `id` as published at `now`: silent, last answering at `lastAnswer`, unless `isAnswering`; its deadline
    /// follows from whether it `isOnline`, and `questionAt`, when its mDNS host is due another question.
    mutating func note(
        _ id: DeviceID,
        isAnswering: Bool,
        lastAnswer: Duration,
        isOnline: Bool,
        questionAt: Duration? = nil,
        now: Duration
    ) {
        guard !isAnswering else {
            remove(id)
            return
        }
        lastAnswers[id] = lastAnswer
        let presenceDue = lastAnswer + (isOnline ? presence.offlineAfter : presence.forgetAfter)
        deadlines[id] = [presenceDue, questionAt].compactMap { $0 }.filter { $0 > now }.min()
    }

    /// Forgets `id` (it answers, or is no longer published).
    mutating func remove(_ id: DeviceID) {
        lastAnswers[id] = nil
        deadlines[id] = nil
    }

    /// The silent devices due at `now`, taken off the deadlines (their derivation notes them again).
    /// - Complexity: O(log s) for each device due.
    mutating func popDue(now: Duration) -> [DeviceID] { deadlines.popDue(now: now) }

    /// The earliest deadline, if any.
    mutating func nextDeadline() -> Duration? { deadlines.next() }

    /// Forgets every device.
    mutating func removeAll() {
        lastAnswers = [:]
        deadlines.removeAll()
    }
}
