import Foundation

/// The outbox's alerts that quiet hours hold: each with its not-before time, in the outbox's order (`seq`). A value
/// with no clock of its own: the outbox tells it each alert written and asks what is due at a time and when the next
/// one is.
///
/// It keeps the order of the alerts: one written later that may go earlier — quiet hours ended, changed or removed by
/// a restart with other options — brings the not-before time of every earlier one down to its own, so that those go
/// before it. The not-before times thus never decrease along the order, and what is due at a time is the first ones.
/// Test alerts are never held and move nothing: the outbox does not tell them.
struct AlertHold: Sendable, Equatable {
    /// An alert held, and when it may go.
    struct Held: Sendable, Equatable {
        var seq: Int64
        var notBefore: Date
    }

    /// The alerts held, in the outbox's order; their not-before times never decrease.
    private(set) var held: [Held] = []
    private var seqs: Set<Int64> = []

    /// Records an alert written at `seq` (after every one recorded) that may go from `notBefore` (`now`, or when it
    /// was written, for one not held); it is held if that is after `now`.
    ///
    /// - Returns: The earlier alerts whose not-before time it brought down to its own: the outbox stores their new
    ///   time (it is where their expiry counts from).
    /// - Complexity: O(k) for k alerts brought down.
    mutating func write(_ seq: Int64, notBefore: Date, now: Date) -> [Held] {
        var lowered: [Held] = []
        var index = held.endIndex
        while index > held.startIndex, held[index - 1].notBefore > notBefore {
            index -= 1
            held[index].notBefore = notBefore
            lowered.append(held[index])
        }
        if notBefore > now {
            held.append(Held(seq: seq, notBefore: notBefore))
            seqs.insert(seq)
        }
        return lowered.reversed()
    }

    /// Removes and returns the alerts due at `now` (not-before time passed), in order.
    /// - Complexity: O(d) for d alerts due, plus O(h) to shift the h held.
    mutating func release(at now: Date) -> [Held] {
        let due = held.prefix { $0.notBefore <= now }
        guard !due.isEmpty else { return [] }
        held.removeFirst(due.count)
        for each in due { seqs.remove(each.seq) }
        return Array(due)
    }

    /// Forgets the alert at `seq` (dropped, or acknowledged without being offered).
    mutating func remove(_ seq: Int64) {
        guard seqs.remove(seq) != nil else { return }
        held.removeAll { $0.seq == seq }
    }

    /// Whether the alert at `seq` is held.
    func contains(_ seq: Int64) -> Bool { seqs.contains(seq) }

    /// When the first held alert may go; `nil` when none is held.
    var nextRelease: Date? { held.first?.notBefore }

    /// How many alerts are held.
    var count: Int { held.count }
}
