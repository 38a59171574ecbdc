import NIOConcurrencyHelpers

/// An event that happens once; any number of tasks can wait for it. A waiting task that is cancelled stops waiting.
public final class OneShotSignal: Sendable {
    private struct State {
        var fired = false
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = NIOLockedValueBox(State())

    /// Creates an event that has not happened.
    public init() {}

    /// Fires the event: every waiter, present and future, returns. Firing again does nothing.
    public func fire() {
        let waiters = state.withLockedValue { state in
            state.fired = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the event fired, or the task is cancelled.
    public func wait() async {
        let id = state.withLockedValue { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLockedValue { state in
                    if state.fired || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLockedValue { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }

    /// Whether the event fired.
    public var hasFired: Bool { state.withLockedValue { $0.fired } }

    /// Returns once the event fired, even if the task is cancelled (a reader thread's end, which cancellation only
    /// asks for).
    func waitIgnoringCancellation() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLockedValue { state in
                if state.fired { return true }
                defer { state.nextWaiter += 1 }
                state.waiters[state.nextWaiter] = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// The number of tasks waiting (for tests that must know a wait began).
    var waiterCount: Int { state.withLockedValue { $0.waiters.count } }
}
