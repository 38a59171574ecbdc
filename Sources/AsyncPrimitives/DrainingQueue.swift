import NIOConcurrencyHelpers

/// A multi-producer, single-consumer queue whose consumer takes *everything* pending at once.
///
/// One consumer: calling ``nextBatch()`` (or ``next()``) while another call still waits is a programming error and
/// traps (the first waiter would otherwise never be resumed).
///
/// This is how bursts are coalesced without delays: while the consumer works on one batch, producers keep pushing;
/// the next ``next()`` returns all of it together, so the store diffs once per burst, however long the burst.
///
/// A queue created with a `limit` never holds more than that many elements: when a push would exceed it, everything
/// pending is dropped and the consumer's next ``nextBatch()`` says so (a slow subscriber then starts over from a
/// fresh snapshot instead of growing memory without bound).
public final class DrainingQueue<Element: Sendable>: Sendable {
    /// What the consumer gets: the elements, in order, and how many were dropped before them.
    public struct Batch: Sendable {
        /// The elements pushed since the last batch (after the last drop), in order.
        public var elements: [Element]
        /// How many elements were dropped since the last batch because the queue was full.
        public var dropped: Int
    }

    private typealias Waiter = CheckedContinuation<Batch?, Never>

    private struct State {
        var pending: [Element] = []
        var dropped = 0
        var waiter: Waiter?
        var isFinished = false

        var hasNews: Bool { !pending.isEmpty || dropped > 0 }

        mutating func takeBatch() -> Batch {
            defer {
                pending = []
                dropped = 0
            }
            return Batch(elements: pending, dropped: dropped)
        }

        /// Hands everything pending to the waiting consumer, if there is one: returns it with what to resume it with.
        mutating func takeWaiter() -> (Waiter, Batch?)? {
            guard let waiter else { return nil }
            if !hasNews && !isFinished { return nil }
            self.waiter = nil
            return (waiter, hasNews ? takeBatch() : nil)
        }
    }

    private let state = NIOLockedValueBox(State())
    private let limit: Int?

    /// Creates an empty queue.
    /// - Parameter limit: The most elements it holds; `nil` for no limit.
    public init(limit: Int? = nil) {
        self.limit = limit
    }

    /// Appends an element, or drops everything pending if the queue is full; wakes the consumer if it waits.
    /// - Returns: `false` if the queue is finished: the element was ignored.
    @discardableResult
    public func push(_ element: Element) -> Bool {
        var accepted = true
        let wake = state.withLockedValue { state -> (Waiter, Batch?)? in
            guard !state.isFinished else {
                accepted = false
                return nil
            }
            if let limit, state.pending.count >= limit {
                state.dropped += state.pending.count + 1
                state.pending = []
            } else {
                state.pending.append(element)
            }
            return state.takeWaiter()
        }
        if let (waiter, batch) = wake { waiter.resume(returning: batch) }
        return accepted
    }

    /// Ends the queue: the consumer gets what is pending, then `nil`.
    public func finish() {
        let wake = state.withLockedValue { state -> (Waiter, Batch?)? in
            state.isFinished = true
            return state.takeWaiter()
        }
        if let (waiter, batch) = wake { waiter.resume(returning: batch) }
    }

    /// Every element pushed since the last call, waiting for at least one; `nil` once the queue is finished and
    /// drained, or when the waiting task is cancelled. For a queue without a limit.
    public func next() async -> [Element]? {
        await nextBatch()?.elements
    }

    /// Every element pushed since the last call and the number dropped, waiting for news; `nil` once the queue is
    /// finished and drained, or when the waiting task is cancelled.
    public func nextBatch() async -> Batch? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: Waiter) in
                let immediate: Batch?? = state.withLockedValue { state in
                    if state.hasNews { return .some(state.takeBatch()) }
                    if state.isFinished || Task.isCancelled { return .some(nil) }
                    precondition(
                        state.waiter == nil,
                        "DrainingQueue has one consumer: nextBatch() called while another call waits"
                    )
                    state.waiter = continuation
                    return .none
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            let waiter = state.withLockedValue { state -> Waiter? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
    }

    /// Whether the consumer is waiting for news (for tests that must know the wait began).
    var hasWaitingConsumer: Bool { state.withLockedValue { $0.waiter != nil } }
}

extension DrainingQueue: AsyncSequence {
    /// Iterates the elements one at a time, in order, until the queue is finished and drained (or the iterating task
    /// is cancelled).
    ///
    /// For a queue without a limit. On a queue with one, a drop ends the iteration, as if the queue were finished: the
    /// consumer must start over (``nextBatch()`` tells how many were dropped).
    public struct AsyncIterator: AsyncIteratorProtocol {
        let queue: DrainingQueue
        var buffered: [Element] = []
        var position = 0
        var hasEnded = false

        public mutating func next() async -> Element? {
            while position == buffered.count {
                guard !hasEnded, let batch = await queue.nextBatch(), batch.dropped == 0 else {
                    hasEnded = true
                    return nil
                }
                buffered = batch.elements
                position = 0
            }
            defer { position += 1 }
            return buffered[position]
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(queue: self) }
}
