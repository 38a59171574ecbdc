import Foundation

/// The destinations' URLs of a `--notify-file` (or systemd's credential `notify`): one URL a line; blank lines and
/// lines starting with `#` (after white space) are skipped.
public enum NotifyList {
    /// One URL and the line it is on.
    public struct Line: Sendable, Equatable {
        public var number: Int
        public var url: String
    }

    /// The URLs of a file's text.
    ///
    /// - Complexity: O(n) in the text's length.
    public static func lines(of text: String) -> [Line] {
        text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { index, raw in
            let line = raw.trimmingCharacters(in: .whitespaces.union(.init(charactersIn: "\r")))
            guard !line.isEmpty, !line.hasPrefix("#") else { return nil }
            return Line(number: index + 1, url: line)
        }
    }
}
