import TextEscaping

/// Text for a terminal: escaping what devices on the network publish, and colour.
public enum TerminalText {
    /// `text` with every control character (C0, DEL, C1) written as a visible escape (`\e`, `\n`, `\u{9b}`), so that
    /// names and TXT values published by devices on the network cannot move the cursor, change colours or break a
    /// line of output. The same escapes as peerscand's log lines (``ControlCharacters``).
    ///
    /// - Complexity: O(n) in the length of `text`.
    public static func escapingControlCharacters(_ text: String) -> String {
        ControlCharacters.escaping(text)
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
