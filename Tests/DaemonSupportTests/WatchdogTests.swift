import DaemonSupport
import Testing

/// `sd_watchdog_enabled` without libsystemd, with the environment passed in.
@Suite("SystemdWatchdog")
struct WatchdogTests {
    private func timeout(_ environment: [String: String], processID: Int32 = 4242) -> Duration? {
        SystemdWatchdog.timeout(environment: { environment[$0] }, processID: processID)
    }

    @Test("WATCHDOG_USEC, for this process or any (no WATCHDOG_PID)")
    func enabled() {
        #expect(timeout(["WATCHDOG_USEC": "30000000"]) == .seconds(30))
        #expect(timeout(["WATCHDOG_USEC": "1500", "WATCHDOG_PID": "4242"]) == .microseconds(1500))
        #expect(timeout(["WATCHDOG_USEC": "1"]) == .microseconds(1))
    }

    @Test("WATCHDOG_PID naming another process: nil")
    func otherProcess() {
        #expect(timeout(["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "4243"]) == nil)
    }

    @Test(
        "missing, zero or garbage WATCHDOG_USEC: nil",
        arguments: [nil, "0", "-1", "", "thirty", "30s", " 30", "99999999999999999999999"] as [String?]
    )
    func disabled(microseconds: String?) {
        var environment = ["WATCHDOG_PID": "4242"]
        environment["WATCHDOG_USEC"] = microseconds
        #expect(timeout(environment) == nil)
    }

    @Test(
        "a garbage WATCHDOG_PID: nil, as sd_watchdog_enabled (it fails to parse it and reports no watchdog)",
        arguments: ["", "abc", "4242x", "-4242"]
    )
    func garbageProcessID(processID: String) {
        #expect(timeout(["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": processID]) == nil)
    }
}
