import Probing
import Testing

@Suite struct RoundDurationsTests {
    @Test func roundsCountInEveryBucketTheyFitCumulatively() {
        var durations = RoundDurations()
        durations.record(.milliseconds(300))
        durations.record(.seconds(2))
        durations.record(.seconds(90))
        let counts = Dictionary(uniqueKeysWithValues: zip(RoundDurations.bounds, durations.cumulativeCounts))
        #expect(counts[0.25] == 0)
        #expect(counts[0.5] == 1)
        #expect(counts[2.5] == 2)
        #expect(counts[60] == 2)  // the 90 s round is in +Inf only, which is the count
        #expect(durations.count == 3)
        #expect(abs(durations.sum - 92.3) < 1e-9)
    }

    @Test func boundsIncrease() {
        #expect(zip(RoundDurations.bounds, RoundDurations.bounds.dropFirst()).allSatisfy { $0 < $1 })
    }
}
