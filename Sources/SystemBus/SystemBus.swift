public import AsyncPrimitives
internal import CSystemdBus
import Glibc
internal import POSIXText

/// A signal received on the bus.
public struct DBusSignal: Hashable, Sendable {
    /// The sender's unique name, e.g. `:1.4`.
    public var sender: String
    /// The object path it was sent from.
    public var path: String
    /// Its interface, e.g. `org.freedesktop.DBus.ObjectManager`.
    public var interface: String
    /// Its member, e.g. `InterfacesAdded`.
    public var member: String
    /// Its arguments.
    public var arguments: [DBusValue]

    /// Creates a signal (tests build them).
    public init(sender: String, path: String, interface: String, member: String, arguments: [DBusValue]) {
        self.sender = sender
        self.path = path
        self.interface = interface
        self.member = member
        self.arguments = arguments
    }
}

/// A signal whose arguments could not be read.
public struct UnreadableSignal: Sendable {
    /// Its `interface.member`, e.g. `org.freedesktop.DBus.Properties.PropertiesChanged`.
    public var signal: String
    /// Why it could not be read.
    public var error: any Error
}

/// A connection to a D-Bus bus through sd-bus: method calls, signal matches, and a loop that waits on the bus's
/// socket. The only importer of CSystemdBus.
///
/// Threading: sd-bus connections are not thread-safe, so a `SystemBus` is used by one thread only — the one that
/// created it and runs ``run(on:onSignal:onUnreadable:onWake:)``; it is not `Sendable`. The match callback runs
/// inside `sd_bus_process` on that thread and only queues the signal; handlers run after it returned, and may call
/// methods. A caller on the concurrency pool runs all of this on a thread of its own (see `BluetoothDiscoverySource`),
/// never blocking a cooperative thread.
public final class SystemBus {
    private let bus: OpaquePointer
    private var received: [DBusSignal] = []
    /// Matched signals whose arguments could not be read: the signal's name (`interface.member`) and why.
    private var unreadable: [UnreadableSignal] = []
    /// How long a method call may take before it fails.
    public var callTimeout: Duration = .seconds(10)

    /// Connects to the system bus (`DBUS_SYSTEM_BUS_ADDRESS`, else `/run/dbus/system_bus_socket`), or to `address`
    /// (a D-Bus address such as `unix:path=/tmp/bus`).
    ///
    /// - Throws: ``DBusError`` with ``DBusError/Code/connect`` if the bus cannot be reached.
    public init(address: String? = nil) throws {
        var opened: OpaquePointer?
        let operation = "connect " + (address ?? "system bus")
        if let address {
            try DBusMessageCodec.check(sd_bus_new(&opened), operation, code: .connect)
            guard let opened else { throw DBusError(.connect, operation: operation, message: "no bus") }
            do {
                try DBusMessageCodec.check(sd_bus_set_address(opened, address), operation, code: .connect)
                try DBusMessageCodec.check(sd_bus_set_bus_client(opened, 1), operation, code: .connect)
                try DBusMessageCodec.check(sd_bus_start(opened), operation, code: .connect)
            } catch {
                sd_bus_unref(opened)
                throw error
            }
        } else {
            try DBusMessageCodec.check(sd_bus_open_system(&opened), operation, code: .connect)
        }
        guard let opened else { throw DBusError(.connect, operation: operation, message: "no bus") }
        bus = opened
    }

    deinit { sd_bus_flush_close_unref(bus) }

    /// Calls a method and waits for its reply (at most ``callTimeout``), processing nothing else meanwhile (signals
    /// that arrive are kept for the loop).
    ///
    /// - Returns: The reply's arguments.
    /// - Throws: ``DBusError``: ``DBusError/Code/call`` with the peer's error name and message, or
    ///   ``DBusError/Code/disconnected``.
    public func call(
        destination: String,
        path: String,
        interface: String,
        member: String,
        arguments: [DBusValue] = []
    ) throws -> [DBusValue] {
        let operation = "\(interface).\(member) on \(path)"
        var message: OpaquePointer?
        try DBusMessageCodec.check(
            sd_bus_message_new_method_call(bus, &message, destination, path, interface, member),
            operation
        )
        defer { sd_bus_message_unref(message) }
        guard let message else { throw DBusError(.message, operation: operation, message: "no message") }
        try DBusMessageCodec.append(arguments, to: message, operation: operation)
        var error = sd_bus_error()
        var reply: OpaquePointer?
        let (seconds, attoseconds) = callTimeout.components
        let microseconds = UInt64(max(0, seconds)) * 1_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000_000)
        let result = sd_bus_call(bus, message, microseconds, &error, &reply)
        defer {
            sd_bus_error_free(&error)
            sd_bus_message_unref(reply)
        }
        guard result >= 0, let reply else {
            let disconnected = result == -ENOTCONN || result == -ECONNRESET
            throw DBusError(
                disconnected ? .disconnected : .call,
                operation: operation,
                name: error.name.map { String(cString: $0) },
                message: error.message.map { String(cString: $0) } ?? POSIXText.errorDescription(-result)
            )
        }
        return try DBusMessageCodec.read(reply, operation: operation)
    }

    /// Asks the bus for the signals a match rule selects (e.g. `type='signal',sender='org.bluez'`); they are
    /// handed to ``run(on:onSignal:onUnreadable:onWake:)``'s `onSignal`.
    public func addMatch(_ rule: String) throws {
        let context = Unmanaged.passUnretained(self).toOpaque()
        let result = sd_bus_add_match(
            bus,
            nil,
            rule,
            { message, context, _ in
                guard let message, let context else { return 0 }
                Unmanaged<SystemBus>.fromOpaque(context).takeUnretainedValue().receive(message)
                return 0
            },
            context
        )
        try DBusMessageCodec.check(result, "add match \(rule)", code: .call)
    }

    /// Queues a signal (inside `sd_bus_process`, on the bus's thread).
    private func receive(_ message: OpaquePointer) {
        func text(_ pointer: UnsafePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }
        let member = text(sd_bus_message_get_member(message))
        let interface = text(sd_bus_message_get_interface(message))
        let arguments: [DBusValue]
        do {
            arguments = try DBusMessageCodec.read(message, operation: "signal \(interface).\(member)")
        } catch {
            unreadable.append(UnreadableSignal(signal: "\(interface).\(member)", error: error))
            return
        }
        received.append(
            DBusSignal(
                sender: text(sd_bus_message_get_sender(message)),
                path: text(sd_bus_message_get_path(message)),
                interface: interface,
                member: member,
                arguments: arguments
            )
        )
    }

    /// Processes the bus until `onWake` returns `false`: hands each matched signal to `onSignal` (which may call
    /// methods), those whose arguments could not be read to `onUnreadable` — once for all that arrived together
    /// (their `interface.member` and errors: the caller reads its sender's state again, once), before the readable
    /// ones — and waits in `reader`'s `poll(2)` on the bus's socket (a signal of `reader` is drained before `onWake`
    /// runs).
    ///
    /// - Throws: ``DBusError/Code/disconnected`` when the connection ends, or what a handler throws.
    public func run(
        on reader: ReaderThread,
        onSignal: (DBusSignal) throws -> Void,
        onUnreadable: (_ signals: [UnreadableSignal]) throws -> Void,
        onWake: () throws -> Bool
    ) throws {
        try reader.loop(
            orThrow: { DBusError(.disconnected, operation: "poll", message: POSIXText.errorDescription($0)) },
            prepare: { () throws in
                try dispatch(onSignal: onSignal, onUnreadable: onUnreadable)
                let events = PollEvents(rawValue: Int16(truncatingIfNeeded: sd_bus_get_events(bus)))
                return ReaderThread.Interest([Watched(sd_bus_get_fd(bus), for: events)], timeout: nextTimeout())
            },
            onWake: onWake,
            handle: { _ in }  // the next prepare processes what arrived
        )
    }

    /// Processes what the bus has and hands the matched signals over, until nothing is left.
    private func dispatch(
        onSignal: (DBusSignal) throws -> Void,
        onUnreadable: (_ signals: [UnreadableSignal]) throws -> Void
    ) throws {
        while true {
            while true {
                let processed = sd_bus_process(bus, nil)
                try DBusMessageCodec.check(processed, "process", code: .disconnected)
                if processed == 0 { break }
            }
            if sd_bus_is_open(bus) <= 0 {
                throw DBusError(.disconnected, operation: "process", message: "the bus closed the connection")
            }
            guard !received.isEmpty || !unreadable.isEmpty else { return }
            let signals = received
            let failures = unreadable
            received = []
            unreadable = []
            if !failures.isEmpty { try onUnreadable(failures) }
            for signal in signals { try onSignal(signal) }
        }
    }

    /// sd-bus's next timeout (a pending call's); `nil` for none.
    private func nextTimeout() -> Duration? {
        var deadline: UInt64 = 0
        guard sd_bus_get_timeout(bus, &deadline) >= 0, deadline != UInt64.max else { return nil }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let nowMicroseconds = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
        guard deadline > nowMicroseconds else { return .zero }
        return .microseconds(min(deadline - nowMicroseconds, 60_000_000))
    }
}

extension SystemBus {
    /// Creates the reader thread a bus loop runs on and waits in (``run(on:onSignal:onUnreadable:onWake:)``); no
    /// thread runs yet.
    ///
    /// - Throws: ``DBusError`` with ``DBusError/Code/connect`` if no eventfd can be made.
    public static func makeReaderThread() throws(DBusError) -> ReaderThread {
        try ReaderThread { DBusError(.connect, operation: "eventfd", message: POSIXText.errorDescription($0)) }
    }
}
