/// A D-Bus value read from a message, or to append to one: the types BlueZ's API uses.
///
/// Arrays carry their element signature so that an empty one can be written; a dictionary (`a{…}`) is an array of
/// ``dictionaryEntry(_:_:)``. Unix file descriptors are not supported.
public indirect enum DBusValue: Hashable, Sendable {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    /// An array of values of one type, `elementSignature` (e.g. `s`, `{sv}`).
    case array(elementSignature: String, [DBusValue])
    case structure([DBusValue])
    case dictionaryEntry(DBusValue, DBusValue)
    case variant(DBusValue)

    /// Its D-Bus type signature, e.g. `a{sv}`.
    public var signature: String {
        switch self {
        case .byte: "y"
        case .boolean: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .array(let element, _): "a" + element
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        case .dictionaryEntry(let key, let value): "{" + key.signature + value.signature + "}"
        case .variant: "v"
        }
    }

    /// A dictionary `a{sv}` from Swift values.
    public static func stringVariantDictionary(_ entries: [String: DBusValue]) -> DBusValue {
        .array(
            elementSignature: "{sv}",
            entries.sorted { $0.key < $1.key }.map { .dictionaryEntry(.string($0.key), .variant($0.value)) }
        )
    }
}

extension DBusValue {
    /// The value inside a variant (itself if not a variant).
    public var unwrapped: DBusValue {
        if case .variant(let inner) = self { return inner.unwrapped }
        return self
    }

    /// A string, object path or signature's text.
    public var string: String? {
        switch unwrapped {
        case .string(let text), .objectPath(let text), .signature(let text): text
        default: nil
        }
    }

    /// A boolean.
    public var bool: Bool? {
        if case .boolean(let value) = unwrapped { return value }
        return nil
    }

    /// Any integer that fits an `Int`.
    public var integer: Int? {
        switch unwrapped {
        case .byte(let value): Int(value)
        case .int16(let value): Int(value)
        case .uint16(let value): Int(value)
        case .int32(let value): Int(value)
        case .uint32(let value): Int(value)
        case .int64(let value): Int(value)
        case .uint64(let value): Int(exactly: value)
        default: nil
        }
    }

    /// The elements of an array.
    public var elements: [DBusValue]? {
        if case .array(_, let elements) = unwrapped { return elements }
        return nil
    }

    /// An array of bytes (`ay`).
    public var bytes: [UInt8]? {
        guard let elements else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(elements.count)
        for element in elements {
            guard case .byte(let byte) = element else { return nil }
            bytes.append(byte)
        }
        return bytes
    }

    /// A dictionary's entries in their order (`a{kv}`), keys and values as they are (values still variants).
    public var entries: [(key: DBusValue, value: DBusValue)]? {
        guard let elements else { return nil }
        var entries: [(key: DBusValue, value: DBusValue)] = []
        for element in elements {
            guard case .dictionaryEntry(let key, let value) = element else { return nil }
            entries.append((key, value))
        }
        return entries
    }

    /// A dictionary with string or object-path keys (`a{sv}`, `a{oa{sa{sv}}}`); the last of a repeated key wins.
    public var dictionary: [String: DBusValue]? {
        guard let entries else { return nil }
        var dictionary: [String: DBusValue] = [:]
        for (key, value) in entries {
            guard let key = key.string else { return nil }
            dictionary[key] = value
        }
        return dictionary
    }
}
