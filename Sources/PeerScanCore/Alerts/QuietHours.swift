import Foundation

/// A daily span of local time in which alerts are held (`--alert-quiet-hours HH:MM-HH:MM`); it may cross midnight
/// (`22:00-07:00`). What it held goes out when it ends, each alert as it was decided (see ``AlertPolicy``).
public struct QuietHours: Sendable, Equatable, CustomStringConvertible {
    /// The start, in minutes after local midnight.
    public var start: Int
    /// The end, in minutes after local midnight (exclusive).
    public var end: Int

    /// Creates the span from `start` (included) to `end` (excluded), in minutes after local midnight.
    /// - Precondition: Both in `0..<1440`, and different.
    public init(start: Int, end: Int) {
        precondition((0..<1440).contains(start) && (0..<1440).contains(end) && start != end)
        self.start = start
        self.end = end
    }

    /// Parses `HH:MM-HH:MM`; `nil` for anything else (or an empty span).
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let start = Self.minutes(parts[0]), let end = Self.minutes(parts[1]), start != end
        else { return nil }
        self.init(start: start, end: end)
    }

    private static func minutes(_ text: Substring) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) }),
            let hours = Int(parts[0]), let minutes = Int(parts[1]), (0..<24).contains(hours), (0..<60).contains(minutes)
        else { return nil }
        return hours * 60 + minutes
    }

    public var description: String {
        func text(_ minutes: Int) -> String {
            let hours = minutes / 60
            let rest = minutes % 60
            return (hours < 10 ? "0" : "") + "\(hours):" + (rest < 10 ? "0" : "") + "\(rest)"
        }
        return "\(text(start))-\(text(end))"
    }

    /// How long from `date` until the span ends, or `nil` if `date` is outside it.
    ///
    /// - Parameter calendar: The calendar with the local time zone.
    public func remaining(at date: Date, calendar: Calendar) -> Duration? {
        let parts = calendar.dateComponents([.hour, .minute, .second, .nanosecond], from: date)
        let seconds =
            Double((parts.hour ?? 0) * 3600 + (parts.minute ?? 0) * 60 + (parts.second ?? 0))
            + Double(parts.nanosecond ?? 0) / 1e9
        let minute = Int(seconds / 60)
        let inside = start < end ? (start..<end).contains(minute) : (minute >= start || minute < end)
        guard inside else { return nil }
        var untilEnd = Double(end * 60) - seconds
        if untilEnd <= 0 { untilEnd += 86_400 }
        return .milliseconds(Int((untilEnd * 1000).rounded(.up)))
    }
}
