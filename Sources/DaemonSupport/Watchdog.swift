import Glibc

/// systemd's watchdog settings for this process (`sd_watchdog_enabled(3)`): `$WATCHDOG_USEC`, if `$WATCHDOG_PID`
/// is unset or names this process.
public enum SystemdWatchdog {
    /// The watchdog timeout, or `nil` when systemd expects no pings.
    public static func timeout(
        environment: (String) -> String? = Environment.value,
        processID: Int32 = getpid()
    ) -> Duration? {
        if let pid = environment("WATCHDOG_PID").flatMap({ Int32($0) }), pid != processID { return nil }
        guard let microseconds = environment("WATCHDOG_USEC").flatMap({ Int64($0) }), microseconds > 0 else {
            return nil
        }
        return .microseconds(microseconds)
    }
}
