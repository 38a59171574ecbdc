import Testing

@testable import PeerScanCore

private let macA = "00:00:0c:11:22:33"
private let macB = "3c:22:fb:44:55:66"

/// The derivation queue on its own: marking in order, unmarking, the hold on new MAC-only devices.
@Suite struct DerivationQueueTests {
    @Test func marksHostsAndMACsOnceEachInOrder() {
        var queue = DerivationQueue()
        #expect(queue.isEmpty)
        queue.mark(host: "tv.local")
        queue.mark(host: "nas.local")
        queue.mark(host: "tv.local")
        queue.mark(macs: [macB, macA])
        queue.mark(mac: macB)
        #expect(!queue.isEmpty)
        #expect(queue.markedHosts == ["nas.local", "tv.local"])
        #expect(queue.markedMACs == [macA, macB])

        for hostName in queue.markedHosts { queue.unmark(host: hostName) }
        #expect(!queue.isEmpty, "MAC addresses still marked")
        queue.unmark(mac: macA)
        queue.unmark(mac: macB)
        #expect(queue.isEmpty)
    }

    @Test func holdsOnlyNewMACsWhileHoldingAndMarksThemWhenTheHoldLifts() {
        var queue = DerivationQueue()
        let unset = queue.holdsBack(mac: macA, isNew: true)
        #expect(!unset, "no hold set")

        queue.holdsNewMACs = true
        let newA = queue.holdsBack(mac: macA, isNew: true)
        let newB = queue.holdsBack(mac: macB, isNew: true)
        let publishedB = queue.holdsBack(mac: macB, isNew: false)
        #expect(newA && newB)
        #expect(!publishedB, "published already: not held")
        #expect(queue.isEmpty, "held is not marked")

        queue.holdsNewMACs = false
        #expect(queue.markedMACs == [macA], "the MAC address published meanwhile is no longer held")
    }

    @Test func removeAllForgetsMarksAndHeldButKeepsTheHold() {
        var queue = DerivationQueue()
        queue.holdsNewMACs = true
        let held = queue.holdsBack(mac: macA, isNew: true)
        #expect(held)
        queue.mark(host: "tv.local")
        queue.mark(mac: macB)
        queue.removeAll()
        #expect(queue.isEmpty)
        #expect(queue.holdsNewMACs)
        queue.holdsNewMACs = false
        #expect(queue.isEmpty, "nothing held is left to mark")
    }
}
