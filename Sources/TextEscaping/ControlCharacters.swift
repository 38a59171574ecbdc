/// Control characters made visible, so that text from the network (names and TXT values that devices publish) can
/// neither move a terminal's cursor, change its colours, nor break or forge a line of output or of a log.
///
/// One escape per control character: `\n`, `\r`, `\t`, `\e` (ESC), and `\u{…}` (hexadecimal) for every other C0
/// character, DEL and the C1 characters (U+0080–U+009F).
public enum ControlCharacters {
    /// Whether `scalar` is a C0 control character, DEL, or a C1 control character.
    @inlinable
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// `text` with every control character written as its visible escape; other characters unchanged.
    ///
    /// - Complexity: O(n) in the length of `text`; no copy when it holds no control character.
    public static func escaping(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                appendEscape(of: scalar, to: &result)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// Appends the visible escape of a control character to `text`.
    ///
    /// - Precondition: `isControl(scalar)`.
    public static func appendEscape(of scalar: Unicode.Scalar, to text: inout String) {
        switch scalar {
        case "\n": text += "\\n"
        case "\r": text += "\\r"
        case "\t": text += "\\t"
        case "\u{1B}": text += "\\e"
        default: text += "\\u{\(String(scalar.value, radix: 16))}"
        }
    }
}
