internal import CSystemdBus
import Glibc

/// An eventfd another thread signals to wake a bus loop (``SystemBus/run(wakeup:onSignal:onWake:)``) or a wait.
/// Writing and reading an eventfd are atomic: safe from any thread, hence `Sendable`.
public final class BusWakeup: Sendable {
    let descriptor: Int32

    /// Creates the eventfd.
    ///
    /// - Throws: ``DBusError`` with ``DBusError/Code/connect`` if no eventfd can be made.
    public init() throws {
        let made = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard made >= 0 else {
            throw DBusError(.connect, operation: "eventfd", message: String(cString: strerror(errno)))
        }
        descriptor = made
    }

    deinit { close(descriptor) }

    /// Wakes the loop or wait.
    public func signal() {
        var one: UInt64 = 1
        _ = write(descriptor, &one, 8)
    }

    /// Consumes pending signals.
    func drain() {
        var count: UInt64 = 0
        _ = read(descriptor, &count, 8)
    }

    /// Blocks the calling thread until signalled or `timeout` passed (a bus-less wait, e.g. before reconnecting).
    public func wait(timeout: Duration) {
        var descriptor = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let milliseconds = timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000
        _ = poll(&descriptor, 1, Int32(clamping: milliseconds))
        drain()
    }
}
