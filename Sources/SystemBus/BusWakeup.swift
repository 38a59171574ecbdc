public import AsyncPrimitives
import Glibc

/// The eventfd another thread signals to wake a bus loop (``SystemBus/run(wakeup:onSignal:onWake:)``) or a wait:
/// the shared ``ThreadWakeup``, which also runs the bus's thread.
public typealias BusWakeup = ThreadWakeup

extension ThreadWakeup {
    /// Creates the eventfd of a bus loop.
    ///
    /// - Throws: ``DBusError`` with ``DBusError/Code/connect`` if no eventfd can be made.
    public convenience init() throws(DBusError) {
        try self.init { DBusError(.connect, operation: "eventfd", message: String(cString: strerror($0))) }
    }
}
