import Foundation

/// A JSON value, decoded strictly (a number is never a bool; an integer is ``int(_:)``, any other number
/// ``float(_:)``) and encoded as it was decoded: peerscan-web re-encodes a request body through it (no body, however
/// made, can add a member to the Varlink call it becomes), and the tests compare messages exactly and check them
/// against declared types. Printed as the enum it is (`string("1")`, `int(1)`): the model tests' mismatch messages
/// name values so.
public enum JSON: Hashable, Sendable, Codable, ExpressibleByStringLiteral,
    ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    case null
    case bool(Bool)
    case int(Int64)
    case float(Double)
    case string(String)
    case array([JSON])
    case object([String: JSON])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        // Each `try?` asks whether the value is of one kind; the last kind's error is the one reported.
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .float(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSON].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .float(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// Parses a message.
    ///
    /// - Throws: `DecodingError` if `text` is not JSON.
    public init(parsing text: String) throws {
        self = try JSONDecoder().decode(JSON.self, from: Data(text.utf8))
    }

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSON)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }

    /// An object's member; `nil` if there is none, or this is not an object.
    public subscript(key: String) -> JSON? {
        guard case .object(let members) = self else { return nil }
        return members[key]
    }
}
