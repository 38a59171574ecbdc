internal import CEventFD
import Foundation
import Glibc

/// A blocking reader on a thread of its own, and the eventfd that wakes it: what the neighbour table's, nl80211's
/// and the D-Bus loops share, so that none of them blocks a thread of the concurrency pool.
///
/// ``run(threadNamed:onCancel:_:)`` starts the thread and returns (or throws, with the body's own error type) when
/// the body does; cancelling the awaiting task signals the eventfd. A body that waits in
/// ``waitForInput(on:orThrow:)`` then returns: the eventfd is never drained there, so a signal sent before the wait
/// began still ends it.
///
/// Writing and reading an eventfd are atomic: every method is safe from any thread, hence `Sendable`.
public final class ThreadWakeup: Sendable {
    /// The eventfd, to poll along with others (it is readable once signalled, until drained).
    public let descriptor: Int32

    /// Creates the eventfd (non-blocking, close-on-exec); closed when released.
    ///
    /// - Parameter makeError: The caller's error for `eventfd(2)`'s `errno`.
    /// - Throws: What `makeError` makes, if no eventfd can be made.
    public init<Failure: Error>(orThrow makeError: (_ errno: Int32) -> Failure) throws(Failure) {
        let made = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard made >= 0 else { throw makeError(errno) }
        descriptor = made
    }

    deinit { close(descriptor) }

    /// Wakes the thread (or a wait).
    public func signal() {
        var one: UInt64 = 1
        _ = write(descriptor, &one, 8)
    }

    /// Consumes pending signals (for a loop that goes on after a wakeup).
    public func drain() {
        var count: UInt64 = 0
        _ = read(descriptor, &count, 8)
    }

    /// Blocks the calling thread until signalled or `timeout` passed, then drains.
    public func wait(timeout: Duration) {
        var descriptor = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let milliseconds = timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000
        _ = poll(&descriptor, 1, Int32(clamping: milliseconds))
        drain()
    }

    /// Blocks the calling thread in `poll(2)` until one of `descriptors` has an event or this wakeup is signalled;
    /// an interrupted `poll` (`EINTR`) is retried.
    ///
    /// - Parameters:
    ///   - descriptors: The descriptors to wait for input on.
    ///   - makeError: The caller's error for `poll(2)`'s `errno`.
    /// - Returns: For each of `descriptors`, whether it has an event (input, an error or a hang-up); `nil` once
    ///   signalled (not drained: a later call returns `nil` at once).
    /// - Throws: What `makeError` makes, if `poll` fails.
    public func waitForInput<Failure: Error>(
        on descriptors: [Int32],
        orThrow makeError: (_ errno: Int32) -> Failure
    ) throws(Failure) -> [Bool]? {
        var polled = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        polled.append(pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0))
        while poll(&polled, nfds_t(polled.count), -1) < 0 {
            guard errno == EINTR else { throw makeError(errno) }
        }
        if polled[descriptors.count].revents != 0 { return nil }
        return polled.dropLast().map { $0.revents != 0 }
    }

    /// Runs `body` on a new thread named `name` and returns when it returns, or throws what it throws. Cancelling
    /// the awaiting task runs `onCancel` (by default ``signal()``), which must make `body` return.
    ///
    /// - Parameters:
    ///   - name: The thread's name (`peerscan-…`: seen in `top -H`, gdb and crash reports).
    ///   - onCancel: What cancellation does instead of ``signal()`` (e.g. mark a state cancelled, then signal).
    ///   - body: The loop; it runs on the new thread only.
    public func run<Failure: Error>(
        threadNamed name: String,
        onCancel: (@Sendable () -> Void)? = nil,
        _ body: @escaping @Sendable () throws(Failure) -> Void
    ) async throws(Failure) {
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (done: CheckedContinuation<Result<Void, Failure>, Never>) in
                let thread = Thread { done.resume(returning: Result(catching: body)) }
                thread.name = name
                thread.start()
            }
        } onCancel: {
            if let onCancel { onCancel() } else { signal() }
        }
        try result.get()
    }
}
