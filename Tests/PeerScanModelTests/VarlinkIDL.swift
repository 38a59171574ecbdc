// A reader of the Varlink interface definition language, enough for io.peerscan.varlink: named types (structs and
// enums), methods, errors; field types bool, int, float, string, object, named, ?T, []T, [string]T, inline enums and
// structs. And a JSON value, to check an encoded reply against a declared type.

import Foundation

/// A type of the Varlink IDL.
indirect enum IDLType: Equatable, CustomStringConvertible {
    case bool, int, float, string, object
    case named(String)
    case optional(IDLType)
    case array(IDLType)
    case dictionary(IDLType)
    case enumeration([String])
    case structure([IDLField])

    var description: String {
        switch self {
        case .bool: "bool"
        case .int: "int"
        case .float: "float"
        case .string: "string"
        case .object: "object"
        case .named(let name): name
        case .optional(let type): "?\(type)"
        case .array(let type): "[]\(type)"
        case .dictionary(let type): "[string]\(type)"
        case .enumeration(let values): "(\(values.joined(separator: ", ")))"
        case .structure(let fields): "(\(fields.map { "\($0.name): \($0.type)" }.joined(separator: ", ")))"
        }
    }
}

/// A field of a struct, a method's parameters or reply, or an error.
struct IDLField: Equatable {
    var name: String
    var type: IDLType
}

/// A parsed interface definition.
struct IDLInterface {
    struct Method {
        var parameters: [IDLField]
        var reply: [IDLField]
    }

    var name = ""
    var types: [String: IDLType] = [:]
    var methods: [String: Method] = [:]
    var errors: [String: [IDLField]] = [:]

    /// A definition that does not parse.
    struct ParseError: Error, CustomStringConvertible {
        var message: String
        var token: Int
        var description: String { "\(message) at token \(token)" }
    }

    /// Parses a definition; comments (`#` to the end of the line) are skipped.
    init(parsing definition: String) throws {
        var parser = Parser(tokens: Self.tokens(of: definition))
        while let keyword = parser.next() {
            switch keyword {
            case "interface": name = try parser.identifier()
            case "type": types[try parser.identifier()] = try parser.parenthesized()
            case "method":
                let name = try parser.identifier()
                let parameters = try parser.fields()
                try parser.expect("->")
                methods[name] = Method(parameters: parameters, reply: try parser.fields())
            case "error": errors[try parser.identifier()] = try parser.fields()
            default: throw ParseError(message: "unexpected \(keyword)", token: parser.position)
            }
        }
    }

    private static func tokens(of definition: String) -> [String] {
        var tokens: [String] = []
        for line in definition.split(separator: "\n") {
            var word = ""
            var characters = line.prefix { $0 != "#" }[...]
            while let character = characters.popFirst() {
                if character.isLetter || character.isNumber || character == "_" || character == "." {
                    word.append(character)
                    continue
                }
                if !word.isEmpty { tokens.append(word) }
                word = ""
                if character == "-", characters.first == ">" {
                    characters.removeFirst()
                    tokens.append("->")
                } else if !character.isWhitespace {
                    tokens.append(String(character))
                }
            }
            if !word.isEmpty { tokens.append(word) }
        }
        return tokens
    }

    private struct Parser {
        var tokens: [String]
        var position = 0

        mutating func next() -> String? {
            guard position < tokens.count else { return nil }
            defer { position += 1 }
            return tokens[position]
        }

        func peek(_ offset: Int = 0) -> String? {
            position + offset < tokens.count ? tokens[position + offset] : nil
        }

        mutating func expect(_ token: String) throws {
            guard next() == token else { throw ParseError(message: "expected \(token)", token: position) }
        }

        mutating func identifier() throws -> String {
            guard let token = next(), token.first?.isLetter == true else {
                throw ParseError(message: "expected a name", token: position)
            }
            return token
        }

        /// `(a: T, …)`, a struct's fields.
        mutating func fields() throws -> [IDLField] {
            guard case .structure(let fields) = try parenthesized() else {
                throw ParseError(message: "expected fields", token: position)
            }
            return fields
        }

        /// `(a: T, …)` or `(a, b, …)`: a struct or an enum.
        mutating func parenthesized() throws -> IDLType {
            try expect("(")
            if peek() == ")" {
                position += 1
                return .structure([])
            }
            if peek(1) != ":" {
                var values = [try identifier()]
                while peek() == "," {
                    position += 1
                    values.append(try identifier())
                }
                try expect(")")
                return .enumeration(values)
            }
            var fields: [IDLField] = []
            repeat {
                if !fields.isEmpty { try expect(",") }
                let name = try identifier()
                try expect(":")
                fields.append(IDLField(name: name, type: try type()))
            } while peek() == ","
            try expect(")")
            return .structure(fields)
        }

        mutating func type() throws -> IDLType {
            switch peek() {
            case "?":
                position += 1
                return .optional(try type())
            case "[":
                position += 1
                if peek() == "]" {
                    position += 1
                    return .array(try type())
                }
                try expect("string")
                try expect("]")
                return .dictionary(try type())
            case "(":
                return try parenthesized()
            default:
                let name = try identifier()
                let builtIns: [String: IDLType] = [
                    "bool": .bool, "int": .int, "float": .float, "string": .string, "object": .object,
                ]
                return builtIns[name] ?? .named(name)
            }
        }
    }
}
