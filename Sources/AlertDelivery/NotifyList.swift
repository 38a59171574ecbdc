import Foundation

/// The destinations' URLs of a `--notify-file` (or systemd's credential `notify`): one URL a line; blank lines and
/// lines starting with `#` (after white space) are skipped.
public enum NotifyList {
    /// One URL and the line it is on.
    public struct Line: Sendable, Equatable {
        public var number: Int
        public var url: String
    }

    /// The URLs of a file's text (lines end with LF or CRLF: `"\r\n"` is one `Character`, split as one newline).
    ///
    /// - Complexity: O(n) in the text's length.
    public static func lines(of text: String) -> [Line] {
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        return lines.enumerated().compactMap { index, raw in
            let line = raw.trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty, !line.hasPrefix("#") else { return nil }
            return Line(number: index + 1, url: line)
        }
    }
}
