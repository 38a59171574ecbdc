// Which failed Avahi browsers are logged at warning: one outage of the daemon is one line (make stress logged 679).

import Testing

@testable import AvahiBrowser

@Suite struct BrowserFailureTallyTests {
    static let tooManyObjects: Int32 = -17  // AVAHI_ERR_TOO_MANY_OBJECTS: about one browser, not the daemon

    @Test func anOutageIsOneWarningAndTheRestAreCountedAtDebug() {
        var tally = BrowserFailureTally()
        let verdicts = (0..<679).map { _ in tally.record(code: AvahiError.noDaemonCode) }
        #expect(verdicts.first == .warning(failed: 1))
        #expect(verdicts.dropFirst().allSatisfy { if case .debug = $0 { true } else { false } })
        #expect(verdicts.last == .debug(failed: 679))
    }

    @Test(arguments: [AvahiError.noDaemonCode, AvahiError.disconnectedCode, -22, -2])
    func everyCodeOfAGoneDaemonBelongsToTheSameOutage(code: Int32) {
        var tally = BrowserFailureTally()
        #expect(tally.record(code: AvahiError.disconnectedCode) == .warning(failed: 1))
        #expect(tally.record(code: code) == .debug(failed: 2))
    }

    @Test func theNextOutageWarnsAgainOnceTheClientRan() {
        var tally = BrowserFailureTally()
        _ = tally.record(code: AvahiError.noDaemonCode)
        _ = tally.record(code: AvahiError.noDaemonCode)
        tally.clientRan()
        #expect(tally.record(code: AvahiError.noDaemonCode) == .warning(failed: 1))
        #expect(tally.record(code: AvahiError.noDaemonCode) == .debug(failed: 2))
    }

    @Test func aFailureOfOneBrowserIsAWarningEveryTime() {
        var tally = BrowserFailureTally()
        #expect(tally.record(code: AvahiError.noDaemonCode) == .warning(failed: 1))
        #expect(tally.record(code: Self.tooManyObjects) == .warning(failed: 2))
        #expect(tally.record(code: Self.tooManyObjects) == .warning(failed: 3))
    }
}

@Suite struct OutageSharedWithResolversTests {
    @Test func aResolverRefusedForTheOutageSharesItsOneWarning() {
        var tally = BrowserFailureTally()
        let first = tally.isFirstOfOutage(code: -22)
        #expect(first, "the resolver refused first is the outage's warning")
        #expect(tally.record(code: AvahiError.noDaemonCode) == .debug(failed: 1))
        let again = tally.isFirstOfOutage(code: -22)
        #expect(!again)
    }

    @Test func aResolverRefusedForAnotherReasonIsNoOutage() {
        var tally = BrowserFailureTally()
        let isOutage = tally.isFirstOfOutage(code: BrowserFailureTallyTests.tooManyObjects)
        #expect(!isOutage)
        #expect(tally.record(code: AvahiError.noDaemonCode) == .warning(failed: 1))
    }
}
