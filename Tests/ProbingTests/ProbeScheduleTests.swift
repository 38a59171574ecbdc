import Testing

@testable import Probing

@Suite("When probe rounds run: the interval, asks, and the floor no ask gets under")
struct ProbeScheduleTests {
    @Test func theFirstRoundIsDueAtOnceThenEveryInterval() {
        var schedule = ProbeSchedule(interval: .seconds(30), floor: .seconds(5))
        #expect(schedule.isDue(at: .zero))
        let asked = schedule.roundStarted(at: .zero)
        #expect(asked == 0)
        #expect(schedule.nextRound == .seconds(30))
        #expect(!schedule.isDue(at: .seconds(29)))
        #expect(schedule.isDue(at: .seconds(30)))
    }

    @Test func anAskAfterTheFloorStartsARoundAtOnce() {
        var schedule = ProbeSchedule(interval: .seconds(30), floor: .seconds(5))
        _ = schedule.roundStarted(at: .zero)
        let coalesced = schedule.ask(at: .seconds(12))
        #expect(!coalesced)
        #expect(schedule.isDue(at: .seconds(12)))
        let asked = schedule.roundStarted(at: .seconds(12))
        #expect(asked == 1)
        #expect(schedule.nextRound == .seconds(42), "the interval counts from the round asked for")
    }

    @Test func asksWithinTheFloorAreCoalescedIntoOneRoundAtItsEnd() {
        var schedule = ProbeSchedule(interval: .seconds(30), floor: .seconds(5))
        _ = schedule.roundStarted(at: .seconds(100))
        let first = schedule.ask(at: .seconds(101))
        let second = schedule.ask(at: .seconds(102))
        #expect(first, "within the floor: waits")
        #expect(second)
        #expect(!schedule.isDue(at: .milliseconds(104_999)))
        #expect(schedule.nextRound == .seconds(105))
        let asked = schedule.roundStarted(at: .seconds(105))
        #expect(asked == 2, "one round serves both asks")
        #expect(schedule.nextRound == .seconds(135), "no ask left: the interval again")
    }

    /// The bound the integration test checks on the wire: a storm of asks over s seconds starts at most
    /// s / floor + 1 rounds, and the last ask is served within a floor.
    @Test(arguments: [Duration.milliseconds(1), .milliseconds(7), .milliseconds(333)])
    func aStormOfAsksStartsAtMostOneRoundPerFloor(spacing: Duration) {
        let floor: Duration = .seconds(5)
        var schedule = ProbeSchedule(interval: .seconds(30), floor: floor)
        var rounds: [Duration] = []
        var now: Duration = .zero
        let storm: Duration = .seconds(60)
        var lastAsk: Duration = .zero
        while now <= storm + floor {
            if now <= storm {
                schedule.ask(at: now)
                lastAsk = now
            }
            if schedule.isDue(at: now) {
                _ = schedule.roundStarted(at: now)
                rounds.append(now)
            }
            now += spacing
        }
        #expect(rounds.count <= Int(storm / floor) + 1)
        #expect(zip(rounds, rounds.dropFirst()).allSatisfy { $1 - $0 >= floor })
        #expect(rounds.last! >= lastAsk, "the last ask got a round")
        #expect(rounds.last! - lastAsk <= floor)
        #expect(schedule.pendingAsks == 0)
    }

    @Test func whileScanningIsOffChecksAreAnIntervalApartAndAnAskEndsTheWait() {
        var schedule = ProbeSchedule(interval: .seconds(30), floor: .seconds(5))
        schedule.foundIdle(at: .zero)
        #expect(schedule.nextRound == .seconds(30))
        _ = schedule.ask(at: .seconds(3))
        #expect(schedule.isDue(at: .seconds(3)), "no round yet: nothing to keep a floor from")
        _ = schedule.roundStarted(at: .seconds(3))
        schedule.foundIdle(at: .seconds(33))
        #expect(schedule.nextRound == .seconds(63))
        let coalesced = schedule.ask(at: .seconds(34))
        #expect(!coalesced, "the floor of the last round is long over")
        #expect(schedule.isDue(at: .seconds(34)))
    }

    @Test func anIdleCheckDropsTheAsksItFound() {
        var schedule = ProbeSchedule(interval: .seconds(30), floor: .seconds(5))
        _ = schedule.roundStarted(at: .zero)
        _ = schedule.ask(at: .seconds(1))
        schedule.foundIdle(at: .seconds(5))
        #expect(schedule.pendingAsks == 0)
        #expect(schedule.nextRound == .seconds(35))
    }

    @Test func aFloorLongerThanTheIntervalIsTheInterval() {
        var schedule = ProbeSchedule(interval: .seconds(2), floor: .seconds(5))
        #expect(schedule.floor == .seconds(2))
        _ = schedule.roundStarted(at: .zero)
        _ = schedule.ask(at: .seconds(1))
        #expect(schedule.nextRound == .seconds(2))
    }
}
