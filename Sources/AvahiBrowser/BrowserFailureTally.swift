// Which failed Avahi browsers are worth a warning. When avahi-daemon dies under load, the browser learns it only when
// its client's FAILURE arrives, behind the resolver events already queued on the bus: each of those still opens record
// browsers, and every one fails the same way (`Daemon not running (-26)`): hundreds in one outage under load. One
// outage is one warning, the rest are counted at debug.

internal import CAvahi

/// Counts failed Avahi browsers since the client last ran and decides which are logged at warning.
///
/// A failure that says the daemon (or the bus) is gone is a warning the first time only, until the client runs again
/// (``clientRan()``): the outage is one line, its later failures are counted (`avahi.failed`) at debug. Any other
/// failure is a warning each time: it is about that browser, not the connection. A resolver the daemon refuses for an
/// outage shares the outage's one warning (``isFirstOfOutage(code:)``).
struct BrowserFailureTally: Sendable, Equatable {
    /// How a failure is logged.
    enum Verdict: Sendable, Equatable {
        /// At warning, with the failures counted since the client last ran.
        case warning(failed: Int)
        /// At debug: a later failure of an outage already logged at warning.
        case debug(failed: Int)
    }

    /// The failures since the client last ran.
    private(set) var failed = 0
    /// Whether a failure that means the daemon is gone was logged at warning since the client last ran.
    private(set) var isOutageLogged = false

    /// Counts one failure.
    ///
    /// - Parameter code: Avahi's error code (`AVAHI_ERR_…`, negative).
    /// - Returns: How to log it.
    /// - Complexity: O(1).
    mutating func record(code: Int32) -> Verdict {
        failed += 1
        guard Self.outageCodes.contains(code) else { return .warning(failed: failed) }
        return isFirstOfOutage(code: code) ? .warning(failed: failed) : .debug(failed: failed)
    }

    /// Notes a failure that an outage may explain (a browser's, or a resolver's, which is not counted here).
    ///
    /// - Parameter code: Avahi's error code.
    /// - Returns: Whether it means the daemon is gone and is the first such failure since the client last ran: the
    ///   one to log at warning.
    /// - Complexity: O(1).
    mutating func isFirstOfOutage(code: Int32) -> Bool {
        guard Self.outageCodes.contains(code), !isOutageLogged else { return false }
        isOutageLogged = true
        return true
    }

    /// The client is running (again): the next outage is logged afresh.
    mutating func clientRan() {
        failed = 0
        isOutageLogged = false
    }

    /// The codes that mean the daemon or the bus is gone, not that this one browser failed: no daemon, the connection
    /// lost, a D-Bus error (the bus dropped the call), the client not connected (`AVAHI_ERR_BAD_STATE`).
    static let outageCodes: Set<Int32> = [
        Int32(AVAHI_ERR_NO_DAEMON), Int32(AVAHI_ERR_DISCONNECTED), Int32(AVAHI_ERR_DBUS_ERROR),
        Int32(AVAHI_ERR_BAD_STATE),
    ]
}
