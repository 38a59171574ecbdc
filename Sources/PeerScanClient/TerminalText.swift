/// Text for a terminal: escaping what devices on the network publish, and colour.
public enum TerminalText {
    /// `text` with every control character (C0, DEL, C1) written as a visible escape (`\e`, `\n`, `\u{9b}`), so that
    /// names and TXT values published by devices on the network cannot move the cursor, change colours or break a
    /// line of output.
    ///
    /// - Complexity: O(n) in the length of `text`.
    public static func escapingControlCharacters(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            guard isControl(scalar) else {
                result.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\u{1B}": result += "\\e"
            default: result += "\\u{\(String(scalar.value, radix: 16))}"
            }
        }
        return result
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// A colour for a line of output.
    public enum Colour: Sendable {
        case green, red, yellow

        var code: String {
            switch self {
            case .green: "32"
            case .red: "31"
            case .yellow: "33"
            }
        }
    }

    /// `text` in `colour` (ANSI SGR), or unchanged when `colour` is `nil`.
    public static func coloured(_ text: String, _ colour: Colour?) -> String {
        guard let colour else { return text }
        return "\u{1B}[\(colour.code)m\(text)\u{1B}[0m"
    }

    /// Whether to colour output, following https://no-color.org: only on a terminal, and never when `NO_COLOR` is
    /// set to a non-empty value or `TERM` is `dumb`.
    ///
    /// - Parameters:
    ///   - isTerminal: Whether the output goes to a terminal (`isatty`).
    ///   - environment: The process environment.
    public static func usesColour(isTerminal: Bool, environment: [String: String]) -> Bool {
        guard isTerminal else { return false }
        if let noColour = environment["NO_COLOR"], !noColour.isEmpty { return false }
        return environment["TERM"] != "dumb"
    }
}
