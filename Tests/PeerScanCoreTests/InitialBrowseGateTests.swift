import Testing

@testable import PeerScanCore

@Suite struct InitialBrowseGateTests {
    @Test func aGateThatDoesNotWaitIsSettledAndHoldsNothing() {
        for (waits, scanning) in [(false, true), (true, false), (false, false)] {
            let gate = InitialBrowseGate(waits: waits, isScanning: scanning, quietPeriod: .seconds(1))
            #expect(gate.isSettled)
            #expect(!gate.holdsNeighbourOnlyDevices)
        }
    }

    @Test func settlesOnlyAfterAllForNowWithNothingPendingAndAQuietPeriod() {
        var gate = InitialBrowseGate(waits: true, isScanning: true, quietPeriod: .seconds(1))
        #expect(gate.holdsNeighbourOnlyDevices)
        gate.noteFound(now: .seconds(10))
        #expect(gate.evaluate(now: .seconds(10), isTableSettled: true) == .waiting, "no all-for-now yet")
        gate.browsingSettled(isRunning: false, isScanning: true)
        #expect(
            gate.evaluate(now: .seconds(10), isTableSettled: true) == .waiting,
            "all-for-now of a daemon not running"
        )
        gate.browsingSettled(isRunning: true, isScanning: true)
        #expect(gate.evaluate(now: .seconds(10), isTableSettled: false) == .waiting, "rows still resolving")
        #expect(gate.evaluate(now: .milliseconds(10_400), isTableSettled: true) == .checkAfter(.milliseconds(600)))
        #expect(gate.takeSettledReason() == nil)
        #expect(gate.evaluate(now: .seconds(11), isTableSettled: true) == .settled)
        #expect(gate.isSettled && !gate.holdsNeighbourOnlyDevices)
        #expect(gate.takeSettledReason() == "all-for-now")
        #expect(gate.takeSettledReason() == nil, "announced once")
    }

    @Test func theTimeLimitSettlesItOnce() {
        var gate = InitialBrowseGate(waits: true, isScanning: true, quietPeriod: .seconds(1))
        gate.settle(reason: "time-limit")
        gate.settle(reason: "scanning-off")
        #expect(gate.takeSettledReason() == "time-limit")
        #expect(gate.evaluate(now: .seconds(100), isTableSettled: true) == .waiting, "already settled")
    }

    @Test func scanningOnHoldsNeighbourOnlyDevicesUntilAvahiReportedOrFiveSeconds() {
        var gate = InitialBrowseGate(waits: false, isScanning: false, quietPeriod: .zero)
        gate.scanningSwitched(on: true, now: .seconds(100))
        #expect(gate.holdsNeighbourOnlyDevices)
        gate.releaseNeighbourHoldIfDue(now: .seconds(104), isRunning: true, isTableSettled: true)
        #expect(gate.holdsNeighbourOnlyDevices, "Avahi has not reported since scanning went on")
        gate.browsingSettled(isRunning: true, isScanning: true)
        gate.releaseNeighbourHoldIfDue(now: .seconds(104), isRunning: true, isTableSettled: false)
        #expect(gate.holdsNeighbourOnlyDevices, "rows still resolving")
        gate.releaseNeighbourHoldIfDue(now: .seconds(104), isRunning: true, isTableSettled: true)
        #expect(!gate.holdsNeighbourOnlyDevices)

        gate.scanningSwitched(on: true, now: .seconds(200))
        gate.releaseNeighbourHoldIfDue(now: .seconds(205), isRunning: true, isTableSettled: false)
        #expect(!gate.holdsNeighbourOnlyDevices, "five seconds at most")
        gate.scanningSwitched(on: true, now: .seconds(300))
        gate.releaseNeighbourHoldIfDue(now: .seconds(300), isRunning: false, isTableSettled: false)
        #expect(!gate.holdsNeighbourOnlyDevices, "no source to wait for")
    }

    @Test func aSourceThatIsDownIsWaitedForOnlyUntilTheNeighbourAnswersAreQuiet() {
        var gate = InitialBrowseGate(waits: true, isScanning: true, quietPeriod: .seconds(1))
        gate.noteNeighbourAnswer(now: .seconds(9))
        #expect(gate.evaluate(now: .seconds(9), isTableSettled: true) == .waiting, "the source's state is not known")
        gate.sourceDown(now: .seconds(10))
        #expect(gate.evaluate(now: .seconds(10), isTableSettled: true) == .checkAfter(.seconds(1)))
        gate.noteNeighbourAnswer(now: .milliseconds(10_500))
        #expect(gate.evaluate(now: .seconds(11), isTableSettled: true) == .checkAfter(.milliseconds(500)))
        #expect(gate.evaluate(now: .milliseconds(11_500), isTableSettled: true) == .settled)
        #expect(gate.takeSettledReason() == "source-down")
    }

    @Test func aSourceThatComesUpIsWaitedForAgain() {
        var gate = InitialBrowseGate(waits: true, isScanning: true, quietPeriod: .seconds(1))
        gate.sourceDown(now: .seconds(10))
        gate.sourceRunning()
        #expect(gate.evaluate(now: .seconds(20), isTableSettled: true) == .waiting, "its browse is to come")
        gate.browsingSettled(isRunning: true, isScanning: true)
        #expect(gate.evaluate(now: .seconds(20), isTableSettled: true) == .settled)
        #expect(gate.takeSettledReason() == "all-for-now")
    }

    @Test func aSourceGoingDownAfterItsBrowseSettledChangesNothing() {
        var gate = InitialBrowseGate(waits: true, isScanning: true, quietPeriod: .seconds(1))
        gate.browsingSettled(isRunning: true, isScanning: true)
        gate.sourceDown(now: .seconds(10))
        #expect(gate.evaluate(now: .seconds(10), isTableSettled: true) == .settled)
        #expect(gate.takeSettledReason() == "all-for-now")
    }
}
