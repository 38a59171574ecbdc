import Foundation

/// A webhook's body written by the person: a JSON document with `{{field}}` placeholders, each replaced by the alert's
/// value JSON-escaped (without quotes, so a placeholder stands inside a string: `"text": "{{title}}: {{message}}"`).
///
/// Small and safe by design: no logic, no loops, no markup; only substitution into strings, escaped, so no alert text
/// (a device's name is whatever the network says) can break out of its string or add members. The names are the
/// payload's (`id`, `event`, `created`, `device`, `title`, `message`, `priority`, `tags` — joined with `, ` —, `link`)
/// and `fields.NAME`; an absent value is empty. Checked at start: an unknown name, an unclosed `{{`, or a text that is
/// not JSON once filled in, stops the start with the reason.
public struct BodyTemplate: Sendable, Hashable {
    /// Why a template was refused.
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        public var description: String
    }

    enum Piece: Sendable, Hashable {
        case text(String)
        case value(String)
    }

    /// The names a placeholder may use besides `fields.NAME`.
    public static let names: Set<String> = [
        "id", "event", "created", "device", "title", "message", "priority", "tags", "link",
    ]

    let pieces: [Piece]

    /// Parses and checks a template.
    ///
    /// - Throws: ``Problem`` naming the first unknown placeholder, an unclosed one, or what JSON found wrong.
    /// - Complexity: O(n) in the template's length.
    public init(_ text: String) throws(Problem) {
        var pieces: [Piece] = []
        var rest = Substring(text)
        while let open = rest.range(of: "{{") {
            pieces.append(.text(String(rest[..<open.lowerBound])))
            guard let close = rest[open.upperBound...].range(of: "}}") else {
                throw Problem(description: "a {{ is not closed")
            }
            let name = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            guard Self.names.contains(name) || (name.hasPrefix("fields.") && name.count > 7) else {
                throw Problem(
                    description:
                        "unknown placeholder {{\(name.prefix(40))}} (names: \(Self.names.sorted().joined(separator: ", ")), fields.NAME)"
                )
            }
            pieces.append(.value(name))
            rest = rest[close.upperBound...]
        }
        pieces.append(.text(String(rest)))
        self.pieces = pieces
        // Filled with text that needs escaping, the result must still be one JSON document.
        let sample = render { _ in "a \"quoted\" \\ line\nbreak" }
        do {
            _ = try JSONSerialization.jsonObject(with: Data(sample.utf8), options: [.fragmentsAllowed])
        } catch {
            throw Problem(description: "not a JSON document once its placeholders are filled in")
        }
    }

    /// The body for one alert.
    ///
    /// - Parameter value: The value of a placeholder's name (empty when absent).
    /// - Complexity: O(n) in the result's length.
    public func render(_ value: (String) -> String) -> String {
        var result = ""
        for piece in pieces {
            switch piece {
            case .text(let text): result += text
            case .value(let name): result += JSONText.escaped(value(name))
            }
        }
        return result
    }
}

/// JSON's string escaping (RFC 8259), without the quotes.
enum JSONText {
    static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029:
                result += String(format: "\\u%04x", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
