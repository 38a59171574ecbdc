import DaemonSupport
import Glibc
import TestSupport
import Testing

/// `sd_notify` from systemd's side: a datagram socket bound where `$NOTIFY_SOCKET` would point.
@Suite("SystemdNotifier")
struct SystemdNotifierTests {
    @Test("one datagram of newline-separated assignments, to a socket path")
    func notifiesPath() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/notify"
            let systemd = try BoundSocket(type: SOCK_DGRAM, path: path)
            let notifier = SystemdNotifier(socketPath: path)
            #expect(notifier.isEnabled)
            try notifier.notify(["READY=1", "STATUS=3 devices"])
            #expect(try systemd.receiveDatagram() == "READY=1\nSTATUS=3 devices")
            try notifier.notify(["WATCHDOG=1"])
            #expect(try systemd.receiveDatagram() == "WATCHDOG=1")
        }
    }

    @Test("to an abstract socket, named with a leading @")
    func notifiesAbstractSocket() throws {
        let name = "@" + uniqueName("peerscan-notify-test")
        let systemd = try BoundSocket(type: SOCK_DGRAM, path: name)
        try SystemdNotifier(socketPath: name).notify(["READY=1", "STATUS=3 devices"])
        #expect(try systemd.receiveDatagram() == "READY=1\nSTATUS=3 devices")
    }

    @Test("a newline inside a value would start another assignment: it becomes a space")
    func newlinesReplaced() throws {
        let name = "@" + uniqueName("peerscan-notify-test")
        let systemd = try BoundSocket(type: SOCK_DGRAM, path: name)
        try SystemdNotifier(socketPath: name).notify(["STATUS=line one\nline two\r\nthree", "READY=1"])
        #expect(try systemd.receiveDatagram() == "STATUS=line one line two three\nREADY=1")
    }

    @Test("no NOTIFY_SOCKET (or an empty one): disabled, and notify does nothing")
    func disabled() throws {
        for notifier in [SystemdNotifier(socketPath: nil), SystemdNotifier(socketPath: "")] {
            #expect(!notifier.isEnabled)
            #expect(notifier.socketPath == nil)
            try notifier.notify(["READY=1"])
        }
    }

    /// The error `notify` throws, or `nil` (an issue is recorded) if it does not throw one.
    private func notifyError(_ socketPath: String) -> SystemdNotifierError? {
        #expect(throws: SystemdNotifierError.self) { try SystemdNotifier(socketPath: socketPath).notify(["READY=1"]) }
    }

    @Test("a socket path where nothing is: a SystemdNotifierError, not a crash")
    func missingSocket() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/absent"
            let error = notifyError(path)
            #expect(error?.errno == ENOENT)
            #expect(error?.socketPath == path)
            #expect(error?.description == "cannot notify systemd at \(path): No such file or directory")
        }
        let name = "@" + uniqueName("peerscan-notify-absent")
        #expect(notifyError(name)?.errno == ECONNREFUSED)
    }

    @Test("a stream socket where a datagram one is expected: an error, not a crash")
    func wrongSocketType() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/stream"
            let stream = try BoundSocket(type: SOCK_STREAM, path: path)
            try stream.listen()
            #expect(notifyError(path)?.errno == EPROTOTYPE)
        }
    }

    @Test("a path too long for sun_path: ENAMETOOLONG")
    func pathTooLong() throws {
        #expect(notifyError("/tmp/" + String(repeating: "n", count: 200))?.errno == ENAMETOOLONG)
        #expect(notifyError("@" + String(repeating: "n", count: 107))?.errno == ENAMETOOLONG)
    }
}
