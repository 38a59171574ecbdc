import Foundation
import PeerScanModel

/// A device's presence over the last day, drawn on one line of the terminal: one cell per half hour, `▇` where it was
/// online most of the time its state was known, `▁` where offline, `·` where the daemon did not know it at all (a
/// cell known only in part — a device first seen a minute ago — draws what was known); with the share of the known
/// time it was online.
public struct PresenceTimeline: Sendable, Equatable {
    /// Each cell's state: `true` online, `false` offline, `nil` unknown; oldest first.
    public var cells: [Bool?]
    /// The share of the known time it was online (0...1), or `nil` if none of the window is known.
    public var uptime: Double?
    /// When the window ends.
    public var end: Date
    /// How long each cell covers.
    public var cellLength: TimeInterval

    /// The timeline of the `window` before `now`, from transitions (oldest first) — the device's state between two
    /// transitions is the earlier one's, and unknown before the first.
    public init(transitions: [PresenceTransition], now: Date, window: TimeInterval = 24 * 3600, cells count: Int = 48) {
        let start = now - window
        cellLength = window / Double(count)
        end = now
        var onlineTime = 0.0
        var knownTime = 0.0
        cells = (0..<count).map { [cellLength] index in
            let from = start + Double(index) * cellLength
            let (online, known) = Self.time(in: from..<(from + cellLength), transitions: transitions)
            onlineTime += online
            knownTime += known
            guard known > 0 else { return nil }
            return online >= known / 2
        }
        uptime = knownTime > 0 ? onlineTime / knownTime : nil
    }

    /// The seconds of `span` the device was online, and the seconds its state was known.
    private static func time(in span: Range<Date>, transitions: [PresenceTransition]) -> (Double, Double) {
        var online = 0.0
        var known = 0.0
        for (index, transition) in transitions.enumerated() {
            let from = max(transition.at, span.lowerBound)
            let to = min(index + 1 < transitions.count ? transitions[index + 1].at : span.upperBound, span.upperBound)
            guard from < to else { continue }
            let seconds = to.timeIntervalSince(from)
            known += seconds
            if transition.online { online += seconds }
        }
        return (online, known)
    }

    /// The two lines of `peerscanctl show`: the cells with the uptime, and below them the hour (UTC) every 6 hours.
    public func lines(indent: Int) -> [String] {
        let bar = String(cells.map { $0.map { $0 ? "▇" : "▁" } ?? "·" })
        let share = uptime.map { "online \(Int(($0 * 100).rounded())) %" } ?? "not seen"
        var ticks = [Character](repeating: " ", count: cells.count + 5)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let start = end - cellLength * Double(cells.count)
        for index in stride(from: 0, to: cells.count, by: max(Int((6 * 3600 / cellLength).rounded()), 1)) {
            let hour = calendar.component(.hour, from: start + Double(index) * cellLength)
            for (offset, character) in String(format: "%02d:00", hour).enumerated() {
                ticks[index + offset] = character
            }
        }
        let padding = String(repeating: " ", count: indent)
        return ["\(bar)  \(share)", padding + String(ticks).trimmingCharacters(in: .whitespaces)]
    }
}
