import Glibc

/// systemd's watchdog settings for this process (`sd_watchdog_enabled(3)`): `$WATCHDOG_USEC`, if `$WATCHDOG_PID`
/// is unset or names this process.
public enum SystemdWatchdog {
    /// The watchdog timeout, or `nil` when systemd expects no pings.
    public static func timeout(
        environment: (String) -> String? = Environment.value,
        processID: Int32 = getpid()
    ) -> Duration? {
        if let text = environment("WATCHDOG_PID") {
            guard let pid = Int32(text), pid > 0, pid == processID else { return nil }
        }
        guard let microseconds = environment("WATCHDOG_USEC").flatMap({ Int64($0) }), microseconds > 0 else {
            return nil
        }
        return .microseconds(microseconds)
    }
}
