import Testing

@testable import PeerscanWeb

@Suite struct ConnectionLimitTests {
    @Test func anAddressAtItsBoundIsRefusedOthersAreNot() {
        var counts = ConnectionCounts(limitPerAddress: 2)
        let first = counts.open(from: "10.0.0.2")
        let second = counts.open(from: "10.0.0.2")
        let third = counts.open(from: "10.0.0.2")
        #expect(first && second && !third)
        #expect(counts.openCount(from: "10.0.0.2") == 2)
        let other = counts.open(from: "10.0.0.3")
        #expect(other)
        counts.close(from: "10.0.0.2")
        let again = counts.open(from: "10.0.0.2")
        #expect(again)
    }

    @Test func closingWhatWasNeverOpenedCountsNothing() {
        var counts = ConnectionCounts(limitPerAddress: 1)
        counts.close(from: "a")
        #expect(counts.openCount(from: "a") == 0)
        let first = counts.open(from: "a")
        let second = counts.open(from: "a")
        #expect(first && !second)
    }
}
