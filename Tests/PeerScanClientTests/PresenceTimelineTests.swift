// `peerscanctl show`'s timeline: half-hour cells over the last day, and the share of the known time online.

import Foundation
import PeerScanModel
import Testing

@testable import PeerScanClient

private let now = Date(timeIntervalSince1970: 1_790_006_400)  // 2026-09-21T16:00:00Z, a whole hour
private let hour: TimeInterval = 3600

@Suite struct PresenceTimelineTests {
    @Test func `online, then offline for six hours, then online again, seen only for the last twelve hours`() {
        let timeline = PresenceTimeline(
            transitions: [
                PresenceTransition(at: now - 12 * hour, online: true, reason: PresenceReason(.answered, ["arp"])),
                PresenceTransition(at: now - 9 * hour, online: false, reason: PresenceReason(.unanswered, ["arp"])),
                PresenceTransition(at: now - 3 * hour, online: true, reason: PresenceReason(.answered, ["arp"])),
            ],
            now: now
        )
        #expect(
            timeline.cells == Array(repeating: nil, count: 24) + Array(repeating: true, count: 6)
                + Array(repeating: false, count: 12) + Array(repeating: true, count: 6)
        )
        #expect(timeline.uptime == 0.5)
        let lines = timeline.lines(indent: 2)
        #expect(lines[0] == String(repeating: "·", count: 24) + "▇▇▇▇▇▇▁▁▁▁▁▁▁▁▁▁▁▁▇▇▇▇▇▇  online 50 %")
        #expect(lines[1] == "  16:00       22:00       04:00       10:00", "every 6 hours from 24 h ago, UTC")
    }

    @Test func `a cell takes the state of most of its time, and nothing known is not seen`() {
        let flap = PresenceTimeline(
            transitions: [
                PresenceTransition(at: now - hour, online: true, reason: nil),
                PresenceTransition(at: now - hour + 1200, online: false, reason: nil),
            ],
            now: now
        )
        #expect(flap.cells.suffix(2) == [true, false], "20 of 30 minutes online, then offline")
        #expect(PresenceTimeline(transitions: [], now: now).uptime == nil)
    }

    @Test func `a device seen for a minute draws that minute, not an unknown half hour`() {
        let timeline = PresenceTimeline(
            transitions: [
                PresenceTransition(at: now - 60, online: true, reason: PresenceReason(.answered, ["arp"])),
                PresenceTransition(at: now - 8, online: false, reason: PresenceReason(.unanswered, ["arp"])),
            ],
            now: now
        )
        #expect(timeline.cells == Array(repeating: nil, count: 47) + [true], "online 52 of its 60 seconds")
        #expect(timeline.lines(indent: 0)[0] == String(repeating: "·", count: 47) + "▇  online 87 %")
        #expect(PresenceTimeline(transitions: [], now: now).lines(indent: 0)[0].hasSuffix("not seen"))
    }
}
