import Foundation
import NIOConcurrencyHelpers

/// A named thread that waits on file descriptors and hands what is ready to a handler, until stopped: the one way a
/// wrapper of a C library (netlink, nl80211, sd-bus, libmosquitto) reads a descriptor without blocking a thread of
/// the concurrency pool.
///
/// ``run(threadNamed:handing:onCancel:_:)`` starts the thread and returns when it ends (cancelling the awaiting task
/// stops it); ``start(threadNamed:_:)`` starts it and ``join(within:)`` awaits its end, for a caller whose stop is a
/// method of its own. On the thread, ``loop(orThrow:prepare:onWake:handle:)`` waits in ``ThreadWakeup``'s
/// `poll(2)`: `prepare` does what is due and says what to wait for next, `handle` gets what is ready.
///
/// Threading: ``stop()``, ``signal()`` and ``join(within:)`` may be called from any thread; the stop flag is under a
/// lock, the wakeup is an eventfd. ``loop(orThrow:prepare:onWake:handle:)`` runs on the reader's thread only.
public final class ReaderThread: Sendable {
    /// The eventfd that wakes the loop.
    public let wakeup: ThreadWakeup
    private let state = NIOLockedValueBox((stopRequested: false, started: false))
    private let finished = OneShotSignal()

    /// Creates the reader's wakeup; no thread runs yet.
    ///
    /// - Parameter makeError: The caller's error for `eventfd(2)`'s `errno`.
    /// - Throws: What `makeError` makes, if no eventfd can be made.
    public init<Failure: Error>(orThrow makeError: (_ errno: Int32) -> Failure) throws(Failure) {
        wakeup = try ThreadWakeup(orThrow: makeError)
    }

    /// Whether ``stop()`` was called.
    public var isStopRequested: Bool { state.withLockedValue { $0.stopRequested } }

    /// Whether the thread was started and has not ended.
    public var isRunning: Bool { state.withLockedValue { $0.started } && !finished.hasFired }

    /// Tells the loop to end: ``loop(orThrow:prepare:onWake:handle:)`` returns after its wait (before it began too:
    /// the signal stays until drained), without asking `onWake`.
    public func stop() {
        state.withLockedValue { $0.stopRequested = true }
        wakeup.signal()
    }

    /// Wakes the loop without stopping it: its `onWake` runs, then `prepare` (e.g. after a command was queued).
    public func signal() { wakeup.signal() }

    /// Blocks the calling thread until signalled or `timeout` passed (``ThreadWakeup/wait(timeout:)``).
    public func wait(timeout: Duration) { wakeup.wait(timeout: timeout) }

    /// Starts `body` on a new thread named `name`; ``join(within:)`` returns once it returned. Call once.
    ///
    /// - Parameters:
    ///   - name: The thread's name (`peerscan-…`: seen in `top -H`, gdb and crash reports).
    ///   - body: What the thread runs, usually ``loop(orThrow:prepare:onWake:handle:)``.
    public func start(threadNamed name: String, _ body: @escaping @Sendable () -> Void) {
        state.withLockedValue { $0.started = true }
        let thread = Thread { [finished] in
            body()
            finished.fire()
        }
        thread.name = name
        thread.start()
    }

    /// Waits, without blocking a thread, for the thread to end, at most `limit`, or until the task is cancelled.
    ///
    /// - Parameter limit: How long to wait at most; `nil` for no limit.
    /// - Returns: Whether the thread ended; `true` at once if it never started.
    @discardableResult
    public func join(within limit: Duration? = nil) async -> Bool {
        guard state.withLockedValue({ $0.started }) else { return true }
        guard let limit else {
            await finished.wait()
            return finished.hasFired
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [finished] in await finished.wait() }
            group.addTask { try? await Task.sleep(for: limit) }
            await group.next()
            group.cancelAll()
        }
        return finished.hasFired
    }

    /// Runs `body` on a new thread named `name`, handed `value`, and returns when it returns, or throws what it
    /// throws. Cancelling the awaiting task runs `onCancel` (by default ``stop()``), which must make `body` return.
    ///
    /// - Parameters:
    ///   - name: The thread's name.
    ///   - value: What the thread alone uses from now on (sockets that are not `Sendable`).
    ///   - onCancel: What cancellation does instead of ``stop()`` (e.g. mark a state cancelled, then ``signal()``).
    ///   - body: The thread's work; it runs on the new thread only.
    public func run<Value, Failure: Error>(
        threadNamed name: String,
        handing value: sending Value,
        onCancel: (@Sendable () -> Void)? = nil,
        _ body: @escaping @Sendable (Value) throws(Failure) -> Void
    ) async throws(Failure) {
        let handed = Handed(value: value)
        let result = NIOLockedValueBox<Result<Void, Failure>>(.success(()))
        start(threadNamed: name) {
            let outcome = Result { () throws(Failure) in try body(handed.value) }
            result.withLockedValue { $0 = outcome }
        }
        await withTaskCancellationHandler {
            await finished.waitIgnoringCancellation()
        } onCancel: {
            if let onCancel { onCancel() } else { stop() }
        }
        try result.withLockedValue { $0 }.get()
    }

    /// Runs `body` on a new thread named `name` (``run(threadNamed:handing:onCancel:_:)`` with nothing handed).
    public func run<Failure: Error>(
        threadNamed name: String,
        onCancel: (@Sendable () -> Void)? = nil,
        _ body: @escaping @Sendable () throws(Failure) -> Void
    ) async throws(Failure) {
        try await run(threadNamed: name, handing: (), onCancel: onCancel) { () throws(Failure) in try body() }
    }

    /// On the calling thread (the reader's): until stopped, runs `prepare`, waits for what it returned, and hands
    /// the events to `handle` (all empty: the timeout passed). A signal is drained and ends the loop after
    /// ``stop()``; otherwise `onWake` says whether to go on.
    ///
    /// - Parameters:
    ///   - makeError: The caller's error for `poll(2)`'s `errno`.
    ///   - prepare: Does what is due, then returns what to wait for next (descriptors and a timeout), or `nil` to end.
    ///   - onWake: Whether to go on after a signal that is not a stop (drained); by default, yes.
    ///   - handle: Gets each watched descriptor's events, in `prepare`'s order.
    /// - Throws: What `makeError` makes if `poll` fails, or what the closures throw.
    public func loop(
        orThrow makeError: (_ errno: Int32) -> any Error,
        prepare: () throws -> Interest?,
        onWake: () throws -> Bool = { true },
        handle: (_ ready: [PollEvents]) throws -> Void
    ) throws {
        while let interest = try prepare() {
            guard let ready = try wakeup.wait(for: interest.watched, timeout: interest.timeout, orThrow: makeError)
            else {
                wakeup.drain()
                if isStopRequested { return }
                if try !onWake() { return }
                continue
            }
            try handle(ready)
        }
    }

    /// What a loop waits for next.
    public struct Interest: Sendable {
        /// The descriptors and their events.
        public var watched: [Watched]
        /// How long to wait at most; `nil` for no limit.
        public var timeout: Duration?

        /// Creates an interest.
        public init(_ watched: [Watched], timeout: Duration? = nil) {
            self.watched = watched
            self.timeout = timeout
        }
    }

    /// A value handed to the thread, which alone uses it after the hand-over (`sending`: the caller keeps no
    /// reference it could use), hence `@unchecked Sendable`.
    private struct Handed<Value>: @unchecked Sendable {
        let value: Value
    }
}
