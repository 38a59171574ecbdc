// What the device table hands over at its next takes: the item changes and events (``DeviceTable/takeChanges(now:)``)
// and the questions for the sources (``DeviceTable/takeQuestions()``). A value the table owns; the derivation in
// DeviceTable+*.swift fills it.

import Discovery
import PeerScanModel

/// The device table's output since its last take: item changes, coalesced to each device's last one when taken; events
/// and questions in the order they came.
///
/// ## Performance
/// Adding is amortised O(1); ``takeChanges()`` is O(c log c) for c changes added.
struct DeviceOutbox: Sendable {
    private var changes: [DeviceTable.Change] = []
    private var events: [DeviceTable.Event] = []
    private var questions: [HostQuestion] = []

    /// Hands `change` over at the next take (a later change of the same device replaces it).
    mutating func add(_ change: DeviceTable.Change) { changes.append(change) }

    /// Hands a removal of each of `ids` over at the next take.
    /// - Complexity: O(n) for n identifiers.
    mutating func addRemovals(of ids: some Sequence<DeviceID>) {
        changes += ids.map { DeviceTable.Change(id: $0, item: nil) }
    }

    /// Hands `event` over at the next take.
    mutating func add(_ event: DeviceTable.Event) { events.append(event) }

    /// Hands `question` over at the next take of questions.
    mutating func add(_ question: HostQuestion) { questions.append(question) }

    /// The changes since the last take, each device's last one, in order of identifier, and the events in order; both
    /// emptied.
    /// - Complexity: O(c log c) for c changes added.
    mutating func takeChanges() -> (changes: [DeviceTable.Change], events: [DeviceTable.Event]) {
        defer {
            changes = []
            events = []
        }
        var latest: [DeviceID: ScanItem?] = [:]
        for change in changes { latest[change.id] = change.item }  // a device's last change counts
        return (latest.map { DeviceTable.Change(id: $0.key, item: $0.value) }.sorted { $0.id < $1.id }, events)
    }

    /// The questions since the last take, in order; emptied.
    mutating func takeQuestions() -> [HostQuestion] {
        defer { questions = [] }
        return questions
    }

    /// Drops the questions not taken yet (nobody is left to ask); changes and events stay.
    mutating func removeQuestions() { questions = [] }
}
