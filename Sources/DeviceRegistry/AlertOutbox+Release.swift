import Foundation

/// Alerts held by quiet hours: offered when their not-before time comes (``AlertHold``), woken by one timer.
extension AlertOutbox {
    /// How many alerts quiet hours hold.
    public var heldCount: Int { hold.count }

    /// When the first alert held may go; `nil` when none is held.
    public var nextRelease: Date? { hold.nextRelease }

    /// Offers the alerts held until `now`, in order, and sets the timer for the next.
    func releaseDue(at now: Date = Date()) {
        for each in hold.release(at: now) { offer(each.seq) }
        guard let next = hold.nextRelease else {
            releaseTimer?.task.cancel()
            releaseTimer = nil
            return
        }
        guard releaseTimer?.due != next else { return }
        releaseTimer?.task.cancel()
        releaseTimer = (next, Self.releaseTask(self, at: next))
    }

    /// Sleeps until `due` (on the wall clock, read when it starts), then releases what is due; a wake too early sets
    /// the timer again.
    static func releaseTask(_ outbox: AlertOutbox, at due: Date) -> Task<Void, Never> {
        Task { [weak outbox] in
            let milliseconds = max(Int64((due.timeIntervalSinceNow * 1000).rounded(.up)), 1)
            guard (try? await Task.sleep(for: .milliseconds(milliseconds))) != nil else { return }
            await outbox?.timerFired(due)
        }
    }

    private func timerFired(_ due: Date) {
        if releaseTimer?.due == due { releaseTimer = nil }
        releaseDue()
    }
}
