internal import CSystemdBus
import Glibc
internal import POSIXText

extension DBusMessageCodec {
    /// `values` appended to a signal, sealed as if sent, and read back: the codec's round trip through sd-bus's own
    /// marshalling, on a connection to nothing (one end of a socket pair, never read), for tests.
    ///
    /// - Throws: ``DBusError`` if sd-bus refuses a value (an invalid object path, say) or the message.
    static func roundTrip(_ values: [DBusValue]) throws -> [DBusValue] {
        let operation = "round trip"
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw DBusError(.connect, operation: "socketpair", message: POSIXText.errorDescription(errno))
        }
        var unclaimed = ends  // closed here, unless the bus took them
        defer { for end in unclaimed where end >= 0 { close(end) } }
        var opened: OpaquePointer?
        try check(sd_bus_new(&opened), operation, code: .connect)
        guard let bus = opened else { throw DBusError(.connect, operation: operation, message: "no bus") }
        defer { sd_bus_close_unref(bus) }
        try check(sd_bus_set_fd(bus, ends[0], ends[0]), operation, code: .connect)
        unclaimed[0] = -1  // the bus closes it
        try check(sd_bus_start(bus), operation, code: .connect)  // authenticating: enough to build messages
        var made: OpaquePointer?
        try check(sd_bus_message_new_signal(bus, &made, "/io/peerscan/Test", "io.peerscan.Test", "Values"), operation)
        guard let message = made else { throw DBusError(.message, operation: operation, message: "no message") }
        defer { sd_bus_message_unref(message) }
        try append(values, to: message, operation: operation)
        try check(sd_bus_message_seal(message, 1, 0), operation)
        try check(sd_bus_message_rewind(message, 1), operation)
        return try read(message, operation: operation)
    }
}
