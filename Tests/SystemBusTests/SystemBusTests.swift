import Foundation
import SystemBus
import Testing

/// SystemBus against a private dbus-daemon (no system bus involved): calls with arguments, typed errors, signals.
@Suite(.timeLimit(.minutes(1))) struct SystemBusTests {
    /// Starts `dbus-daemon --session` on a socket in a temporary folder; returns its address and process.
    static func privateBus() throws -> (address: String, daemon: Process, folder: URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("peerscan-bus-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let address = "unix:path=\(folder.path)/bus"
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        daemon.arguments = ["--session", "--nofork", "--nosyslog", "--address=\(address)"]
        try daemon.run()
        for _ in 0..<100 where !FileManager.default.fileExists(atPath: "\(folder.path)/bus") {
            usleep(20_000)
        }
        return (address, daemon, folder)
    }

    static func stop(_ daemon: Process, _ folder: URL) {
        // SIGKILL: the test process blocks SIGTERM, and a child inherits its signal mask.
        kill(daemon.processIdentifier, SIGKILL)
        daemon.waitUntilExit()
        try? FileManager.default.removeItem(at: folder)  // a leftover temporary folder changes no result
    }

    @Test func callsWithArgumentsAndReadsReplies() throws {
        let (address, daemon, folder) = try Self.privateBus()
        defer { Self.stop(daemon, folder) }
        let bus = try SystemBus(address: address)
        let dbus = (
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus"
        )
        let requested = try bus.call(
            destination: dbus.destination,
            path: dbus.path,
            interface: dbus.interface,
            member: "RequestName",
            arguments: [.string("io.peerscan.Test"), .uint32(0)]
        )
        #expect(requested == [.uint32(1)])  // DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER
        let names = try bus.call(
            destination: dbus.destination,
            path: dbus.path,
            interface: dbus.interface,
            member: "ListNames"
        )
        #expect(names.first?.elements?.compactMap(\.string).contains("io.peerscan.Test") == true)
    }

    @Test func peerErrorsCarryTheirNameAndTheCall() throws {
        let (address, daemon, folder) = try Self.privateBus()
        defer { Self.stop(daemon, folder) }
        let bus = try SystemBus(address: address)
        let error = #expect(throws: DBusError.self) {
            try bus.call(
                destination: "org.freedesktop.DBus",
                path: "/org/freedesktop/DBus",
                interface: "org.freedesktop.DBus",
                member: "GetNameOwner",
                arguments: [.string("org.bluez")]
            )
        }
        #expect(error?.code == .call)
        #expect(error?.name == "org.freedesktop.DBus.Error.NameHasNoOwner")
        #expect(error?.operation == "org.freedesktop.DBus.GetNameOwner on /org/freedesktop/DBus")
    }

    @Test func noBusIsAConnectError() {
        let error = #expect(throws: DBusError.self) {
            try SystemBus(address: "unix:path=/nonexistent/peerscan-bus")
        }
        #expect(error?.code == .connect)
    }

    @Test func matchedSignalsReachTheLoop() throws {
        let (address, daemon, folder) = try Self.privateBus()
        defer { Self.stop(daemon, folder) }
        let bus = try SystemBus(address: address)
        try bus.addMatch(
            "type='signal',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='io.peerscan.X'"
        )
        let other = try SystemBus(address: address)
        _ = try other.call(
            destination: "org.freedesktop.DBus",
            path: "/org/freedesktop/DBus",
            interface: "org.freedesktop.DBus",
            member: "RequestName",
            arguments: [.string("io.peerscan.X"), .uint32(0)]
        )
        let reader = try SystemBus.makeReaderThread()
        var received: [DBusSignal] = []
        var unreadable: [String] = []
        try bus.run(
            on: reader,
            onSignal: { signal in
                received.append(signal)
                reader.signal()
            },
            onUnreadable: { signals in unreadable += signals.map(\.signal) },
            onWake: { false }
        )
        #expect(unreadable.isEmpty)
        #expect(received.map(\.member) == ["NameOwnerChanged"])
        #expect(received.first?.arguments.first == .string("io.peerscan.X"))
        #expect(received.first?.arguments.last?.string?.hasPrefix(":") == true)
    }

    /// Signals whose arguments cannot be read (a Unix file descriptor: not a type BlueZ's signals carry) are handed
    /// over together, once for those that arrived at once, before the readable ones.
    @Test func unreadableSignalsThatArriveTogetherAreHandedOverOnce() throws {
        let (address, daemon, folder) = try Self.privateBus()
        defer { Self.stop(daemon, folder) }
        let bus = try SystemBus(address: address)
        try bus.addMatch("type='signal',interface='io.peerscan.X'")
        func emit(_ value: String) throws {
            let gdbus = Process()
            gdbus.executableURL = URL(fileURLWithPath: "/usr/bin/gdbus")
            // --session (with the bus's address) rather than --address, which skips Hello: the bus routes nothing.
            gdbus.arguments = ["emit", "--session", "--object-path", "/x", "--signal", "io.peerscan.X.Y", value]
            gdbus.environment = ["DBUS_SESSION_BUS_ADDRESS": address]
            try gdbus.run()
            gdbus.waitUntilExit()
            #expect(gdbus.terminationStatus == 0)
        }
        for value in ["handle 0", "'readable'", "handle 1", "handle 2"] { try emit(value) }
        // A round trip: the bus forwarded the signals before it replies.
        _ = try bus.call(
            destination: "org.freedesktop.DBus",
            path: "/org/freedesktop/DBus",
            interface: "org.freedesktop.DBus",
            member: "GetId"
        )
        let reader = try SystemBus.makeReaderThread()
        reader.signal()  // the loop ends after its first pass, which handles every message queued
        var calls: [[String]] = []
        var received: [DBusValue] = []
        try bus.run(
            on: reader,
            onSignal: { signal in
                #expect(calls.count == 1, "after the unreadable ones")
                received += signal.arguments
            },
            onUnreadable: { signals in calls.append(signals.map(\.signal)) },
            onWake: { false }
        )
        #expect(calls == [["io.peerscan.X.Y", "io.peerscan.X.Y", "io.peerscan.X.Y"]])
        #expect(received == [.string("readable")])
    }
}
