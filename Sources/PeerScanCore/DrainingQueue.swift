import Synchronization

/// A multi-producer, single-consumer queue whose consumer takes *everything* pending at once.
///
/// This is how bursts are coalesced without delays: while the consumer works on one batch, producers keep pushing;
/// the next ``next()`` returns all of it together, so the store diffs once per burst, however long the burst.
public final class DrainingQueue<Element: Sendable>: Sendable {
    private typealias Waiter = CheckedContinuation<[Element]?, Never>

    private struct State {
        var pending: [Element] = []
        var waiter: Waiter?
        var isFinished = false

        /// Hands everything pending to the waiting consumer, if there is one: returns it with what to resume it with.
        mutating func takeWaiter() -> (Waiter, [Element]?)? {
            guard let waiter else { return nil }
            self.waiter = nil
            if pending.isEmpty { return isFinished ? (waiter, nil) : nil }
            defer { pending = [] }
            return (waiter, pending)
        }
    }

    private let state = Mutex(State())

    /// Creates an empty queue.
    public init() {}

    /// Appends an element; wakes the consumer if it waits. Ignored after ``finish()``.
    public func push(_ element: Element) {
        let wake = state.withLock { state -> (Waiter, [Element]?)? in
            guard !state.isFinished else { return nil }
            state.pending.append(element)
            return state.takeWaiter()
        }
        if let (waiter, batch) = wake { waiter.resume(returning: batch) }
    }

    /// Ends the queue: the consumer gets what is pending, then `nil`.
    public func finish() {
        let wake = state.withLock { state -> (Waiter, [Element]?)? in
            state.isFinished = true
            return state.takeWaiter()
        }
        if let (waiter, batch) = wake { waiter.resume(returning: batch) }
    }

    /// Every element pushed since the last call, waiting for at least one; `nil` once the queue is finished and
    /// drained, or when the waiting task is cancelled.
    public func next() async -> [Element]? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: Waiter) in
                let immediate: [Element]?? = state.withLock { state in
                    if !state.pending.isEmpty {
                        defer { state.pending = [] }
                        return .some(state.pending)
                    }
                    if state.isFinished || Task.isCancelled { return .some(nil) }
                    state.waiter = continuation
                    return .none
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
    }
}
