public import AsyncPrimitives
import Glibc
internal import POSIXText

/// The reader thread a bus loop (``SystemBus/run(wakeup:onSignal:onUnreadable:onWake:)``) runs on and waits in:
/// the shared ``ReaderThread``, whose wakeup another thread signals.
public typealias BusWakeup = ReaderThread

extension ReaderThread {
    /// Creates the reader thread of a bus loop (its eventfd; no thread runs yet).
    ///
    /// - Throws: ``DBusError`` with ``DBusError/Code/connect`` if no eventfd can be made.
    public convenience init() throws(DBusError) {
        try self.init { DBusError(.connect, operation: "eventfd", message: POSIXText.errorDescription($0)) }
    }
}
