import SeededRandom
import Testing

@testable import Probing

@Suite("The packets-per-second ceiling: a token bucket on a manual clock")
struct TokenBucketTests {
    @Test func aFullBucketGivesItsCapacityAtOnceThenOneTokenPerSpacing() {
        var bucket = TokenBucket(rate: 100, capacity: 3, now: .zero)
        let waits = [0, 0, 0, 0, 9, 10, 10].map { bucket.take(at: .milliseconds($0)) }
        // Three at once, then empty: the next token 1 s / 100 after the bucket was full.
        #expect(waits == [.zero, .zero, .zero, .milliseconds(10), .milliseconds(1), .zero, .milliseconds(10)])
    }

    @Test func aRefusedTakeTakesNothing() {
        var bucket = TokenBucket(rate: 10, capacity: 1, now: .zero)
        let first = bucket.take(at: .zero)
        let before = bucket
        let second = bucket.take(at: .milliseconds(50))
        #expect(first == .zero && second == .milliseconds(50))
        #expect(bucket == before)
    }

    @Test func anIdleBucketRefillsToItsCapacityOnly() {
        var bucket = TokenBucket(rate: 1000, capacity: 5, now: .zero)
        for _ in 0..<5 { _ = bucket.take(at: .zero) }
        let later: Duration = .seconds(60)  // 60,000 tokens' worth of idling
        var taken = 0
        while bucket.take(at: later) == .zero { taken += 1 }
        #expect(taken == 5)
    }

    @Test func theWaitForABatchIsTheTimeUntilThatManyTokensAreHeld() {
        var bucket = TokenBucket(rate: 50, capacity: 4, now: .zero)
        for _ in 0..<4 { _ = bucket.take(at: .zero) }
        #expect(bucket.waitForTokens(1, at: .zero) == .milliseconds(20))
        #expect(bucket.waitForTokens(4, at: .zero) == .milliseconds(80))
        #expect(bucket.waitForTokens(40, at: .zero) == .milliseconds(80), "no more than the capacity")
        #expect(bucket.waitForTokens(4, at: .milliseconds(100)) == .zero)
    }

    @Test func aRateThatDoesNotDivideASecondLosesNoTokenOverALongRun() {
        // 1 s / 3 is 333,333,333.33 ns: the spacing is kept in attoseconds, so 3,000 tokens take 1,000 s, not less.
        var bucket = TokenBucket(rate: 3, capacity: 1, now: .zero)
        var now: Duration = .zero
        var taken = 0
        while now <= .seconds(1000) {
            let wait = bucket.take(at: now)
            if wait == .zero { taken += 1 } else { now += wait }
        }
        #expect(taken == 3001, "one at 0, then one every third of a second up to 1,000 s")
    }

    /// The ceiling itself: over any window of w seconds, a sender that takes whenever it may gets at most
    /// capacity + rate × w tokens, and one that always waits as told gets at least rate × w - 1.
    @Test(arguments: [(500, 10), (2000, 40), (7, 1)])
    func noWindowHoldsMoreThanTheCapacityPlusTheRate(rate: Int, capacity: Int) {
        var random = SeededGenerator(seed: UInt64(rate))
        var bucket = TokenBucket(rate: rate, capacity: capacity, now: .zero)
        var now: Duration = .zero
        var sent: [Duration] = []
        while sent.count < 20 * rate {
            let wait = bucket.take(at: now)
            if wait == .zero {
                sent.append(now)
            } else {
                // Sleep as told, sometimes longer (a busy machine), sometimes until the bucket is full.
                let extra = Duration.microseconds(Int64.random(in: 0...3000, using: &random))
                now += Bool.random(using: &random) ? wait : bucket.waitForTokens(capacity, at: now) + extra
            }
        }
        for window in [Duration.milliseconds(100), .seconds(1), .seconds(5)] {
            let allowed =
                capacity
                + Int(
                    Double(rate)
                        * (Double(window.components.seconds) + 1e-18
                            * Double(window.components.attoseconds))
                )
            var start = 0
            var most = 0
            for end in sent.indices {
                while sent[end] - sent[start] >= window { start += 1 }
                most = max(most, end - start + 1)
            }
            #expect(most <= allowed, "\(most) datagrams in \(window) at \(rate)/s with a bucket of \(capacity)")
        }
        let elapsed = sent.last! - sent.first!
        let expectedLeast = Double(sent.count - capacity) / Double(rate)
        #expect(Double(elapsed.components.seconds) + 1 >= expectedLeast)
    }
}
