internal import CSystemdBus
import Glibc
internal import POSIXText

/// Reads every argument of an sd-bus message into ``DBusValue``s and appends them: the only code that walks sd-bus
/// messages. Negative sd-bus return codes become ``DBusError``s carrying `strerror`.
enum DBusMessageCodec {
    /// Reads the message's remaining arguments.
    static func read(_ message: OpaquePointer, operation: String) throws -> [DBusValue] {
        var values: [DBusValue] = []
        while let value = try readOne(message, operation: operation) { values.append(value) }
        return values
    }

    /// Reads the next value of the current container, `nil` at its end.
    private static func readOne(_ message: OpaquePointer, operation: String) throws -> DBusValue? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        let peeked = sd_bus_message_peek_type(message, &type, &contents)
        try check(peeked, operation)
        guard peeked > 0 else { return nil }
        let kind = UInt8(bitPattern: type)
        switch kind {
        case UInt8(ascii: "a"), UInt8(ascii: "r"), UInt8(ascii: "e"), UInt8(ascii: "v"):
            let signature = contents.map { String(cString: $0) } ?? ""
            try check(sd_bus_message_enter_container(message, type, contents), operation)
            var inner: [DBusValue] = []
            while let value = try readOne(message, operation: operation) { inner.append(value) }
            try check(sd_bus_message_exit_container(message), operation)
            switch kind {
            case UInt8(ascii: "a"): return .array(elementSignature: signature, inner)
            case UInt8(ascii: "r"): return .structure(inner)
            case UInt8(ascii: "e"):
                guard inner.count == 2 else { throw DBusError(.reply, operation: operation, message: "bad entry") }
                return .dictionaryEntry(inner[0], inner[1])
            default:
                guard inner.count == 1 else { throw DBusError(.reply, operation: operation, message: "bad variant") }
                return .variant(inner[0])
            }
        default:
            return try readBasic(message, kind: kind, operation: operation)
        }
    }

    private static func readBasic(_ message: OpaquePointer, kind: UInt8, operation: String) throws -> DBusValue {
        func basic<T>(_ initial: T) throws -> T {
            var value = initial
            try withUnsafeMutableBytes(of: &value) {
                try check(sd_bus_message_read_basic(message, CChar(bitPattern: kind), $0.baseAddress), operation)
            }
            return value
        }
        switch kind {
        case UInt8(ascii: "y"): return .byte(try basic(UInt8(0)))
        case UInt8(ascii: "b"): return .boolean(try basic(Int32(0)) != 0)
        case UInt8(ascii: "n"): return .int16(try basic(Int16(0)))
        case UInt8(ascii: "q"): return .uint16(try basic(UInt16(0)))
        case UInt8(ascii: "i"): return .int32(try basic(Int32(0)))
        case UInt8(ascii: "u"): return .uint32(try basic(UInt32(0)))
        case UInt8(ascii: "x"): return .int64(try basic(Int64(0)))
        case UInt8(ascii: "t"): return .uint64(try basic(UInt64(0)))
        case UInt8(ascii: "d"): return .double(try basic(Double(0)))
        case UInt8(ascii: "s"), UInt8(ascii: "o"), UInt8(ascii: "g"):
            let pointer = try basic(UnsafePointer<CChar>?.none)
            let text = pointer.map { String(cString: $0) } ?? ""
            return kind == UInt8(ascii: "s")
                ? .string(text) : kind == UInt8(ascii: "o") ? .objectPath(text) : .signature(text)
        default:
            throw DBusError(
                .reply,
                operation: operation,
                message: "unsupported type '\(Character(Unicode.Scalar(kind)))'"
            )
        }
    }

    /// Appends values to a message being built.
    static func append(_ values: [DBusValue], to message: OpaquePointer, operation: String) throws {
        for value in values { try appendOne(value, to: message, operation: operation) }
    }

    private static func appendOne(_ value: DBusValue, to message: OpaquePointer, operation: String) throws {
        func basic<T>(_ kind: Character, _ initial: T) throws {
            var copy = initial
            try withUnsafeBytes(of: &copy) {
                try check(sd_bus_message_append_basic(message, CChar(kind.asciiValue!), $0.baseAddress), operation)
            }
        }
        func container(_ kind: Character, _ contents: String, _ inner: [DBusValue]) throws {
            try check(sd_bus_message_open_container(message, CChar(kind.asciiValue!), contents), operation)
            for value in inner { try appendOne(value, to: message, operation: operation) }
            try check(sd_bus_message_close_container(message), operation)
        }
        switch value {
        case .byte(let byte): try basic("y", byte)
        case .boolean(let bool): try basic("b", Int32(bool ? 1 : 0))
        case .int16(let number): try basic("n", number)
        case .uint16(let number): try basic("q", number)
        case .int32(let number): try basic("i", number)
        case .uint32(let number): try basic("u", number)
        case .int64(let number): try basic("x", number)
        case .uint64(let number): try basic("t", number)
        case .double(let number): try basic("d", number)
        case .string(let text), .objectPath(let text), .signature(let text):
            let kind: CChar = value.signature.utf8.first.map { CChar(bitPattern: $0) } ?? 0
            // For strings append_basic takes the text itself, not a pointer to it.
            try text.withCString { try check(sd_bus_message_append_basic(message, kind, $0), operation) }
        case .array(let element, let elements): try container("a", element, elements)
        case .structure(let fields): try container("r", String(value.signature.dropFirst().dropLast()), fields)
        case .dictionaryEntry(let key, let entryValue):
            try container("e", key.signature + entryValue.signature, [key, entryValue])
        case .variant(let inner): try container("v", inner.signature, [inner])
        }
    }

    /// Throws a ``DBusError`` for a negative sd-bus return code (`-errno`).
    static func check(_ result: Int32, _ operation: String, code: DBusError.Code = .message) throws {
        guard result < 0 else { return }
        throw DBusError(code, operation: operation, message: POSIXText.errorDescription(-result))
    }
}
