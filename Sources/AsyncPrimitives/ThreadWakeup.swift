internal import CEventFD
import Foundation
import Glibc

/// The eventfd that wakes a thread blocked in `poll(2)`: what the neighbour table's, nl80211's
/// and the D-Bus loops share, so that none of them blocks a thread of the concurrency pool.
///
/// ``wait(for:timeout:orThrow:)`` waits on any descriptors, for input or room to write, with a timeout, and returns
/// `nil` when signalled: the eventfd is never drained there, so a signal sent before the wait began still ends it.
/// ``ReaderThread`` is the thread that waits in it.
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
        struct Ignored: Error {}
        _ = try? wait(for: [], timeout: timeout) { _ in Ignored() }  // a failed poll ends the wait early: harmless
        drain()
    }

    /// Blocks the calling thread in `poll(2)` until one of `watched` has an event it asks for (or an error or a
    /// hang-up), `timeout` passed, or this wakeup is signalled. An interrupted `poll` (`EINTR`) is retried for the
    /// time left: the one place that handles it.
    ///
    /// - Parameters:
    ///   - watched: The descriptors and the events to wait for on each.
    ///   - timeout: How long to wait at most; `nil` for no limit.
    ///   - makeError: The caller's error for `poll(2)`'s `errno`.
    /// - Returns: For each of `watched`, the events it has (all empty: the timeout passed); `nil` once signalled
    ///   (not drained: a later call returns `nil` at once).
    /// - Throws: What `makeError` makes, if `poll` fails.
    /// - Complexity: O(n) for n watched descriptors, besides the wait.
    public func wait<Failure: Error>(
        for watched: [Watched],
        timeout: Duration?,
        orThrow makeError: (_ errno: Int32) -> Failure
    ) throws(Failure) -> [PollEvents]? {
        var polled = watched.map { pollfd(fd: $0.descriptor, events: $0.events.rawValue, revents: 0) }
        polled.append(pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0))
        let clock = ContinuousClock()
        let deadline = timeout.map { clock.now + $0 }
        while poll(&polled, nfds_t(polled.count), Self.milliseconds(until: deadline, on: clock)) < 0 {
            guard errno == EINTR else { throw makeError(errno) }
        }
        if polled[watched.count].revents != 0 { return nil }
        return polled.dropLast().map { PollEvents(rawValue: $0.revents) }
    }

    /// A `poll(2)` timeout: the milliseconds until `deadline`, rounded up (a wait never ends early), -1 for none.
    private static func milliseconds(until deadline: ContinuousClock.Instant?, on clock: ContinuousClock) -> Int32 {
        guard let deadline else { return -1 }
        let left = deadline - clock.now
        guard left > .zero else { return 0 }
        let (seconds, attoseconds) = left.components
        return Int32(clamping: seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
    }
}

/// A descriptor to wait on, and the events to wait for (``ThreadWakeup/wait(for:timeout:orThrow:)``).
public struct Watched: Hashable, Sendable {
    /// The file descriptor.
    public var descriptor: Int32
    /// What to wait for: ``PollEvents/readable``, ``PollEvents/writable`` or both.
    public var events: PollEvents

    /// Creates a watch; `events` defaults to input.
    public init(_ descriptor: Int32, for events: PollEvents = .readable) {
        self.descriptor = descriptor
        self.events = events
    }
}

/// `poll(2)`'s event bits, asked for (``readable``, ``writable``) or reported (those, and ``failed``).
public struct PollEvents: OptionSet, Hashable, Sendable {
    public let rawValue: Int16

    /// Creates events from `poll(2)`'s bits.
    public init(rawValue: Int16) { self.rawValue = rawValue }

    /// Input to read (`POLLIN`).
    public static let readable = PollEvents(rawValue: Int16(POLLIN))
    /// Room to write (`POLLOUT`).
    public static let writable = PollEvents(rawValue: Int16(POLLOUT))
    /// An error, a hang-up or a closed descriptor (`POLLERR | POLLHUP | POLLNVAL`): reported even when not asked for;
    /// a read or write then tells which.
    public static let failed = PollEvents(rawValue: Int16(POLLERR | POLLHUP | POLLNVAL))
}
