import Foundation

/// A digest's window as written on the command line (`--digest 15m`) and in a destination's URL (`?digest=15m`):
/// a whole number with a unit, `s`, `m` or `h` (`90s`, `15m`, `1h`), or seconds without one (`900`, as peerscand's
/// options give their durations); `0` or `off` for none.
///
/// Hand-written because the tree has no duration with units to reuse: peerscand's options take plain seconds, and
/// swift-argument-parser parses none.
public enum DigestInterval {
    /// The longest window taken: a day (alerts expire from peerscand's outbox after `--alert-expiry`, 24 h).
    public static let maximum = Duration.seconds(24 * 3600)

    /// The window of `text`: `.zero` for `0` or `off`; `nil` for anything else that is not a window of at most
    /// ``maximum``.
    ///
    /// - Complexity: O(n) in the length of `text`.
    public static func duration(parsing text: String) -> Duration? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        if trimmed == "off" { return .zero }
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600]
        var digits = Substring(trimmed)
        var unit: Int64 = 1
        if let last = trimmed.last, !last.isNumber {
            guard let given = units[last] else { return nil }
            unit = given
            digits = digits.dropLast()
        }
        guard !digits.isEmpty, digits.count <= 6, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
            let number = Int64(digits),
            number >= 0
        else { return nil }
        let duration = Duration.seconds(number * unit)
        return duration <= maximum ? duration : nil
    }

    /// `duration` as written back: `15m`, `90s`, `1h`.
    public static func text(_ duration: Duration) -> String {
        let seconds = duration.components.seconds
        if seconds > 0, seconds % 3600 == 0 { return "\(seconds / 3600)h" }
        if seconds > 0, seconds % 60 == 0 { return "\(seconds / 60)m" }
        return "\(seconds)s"
    }
}
