import PeerScanModel
import Testing

@testable import PeerScanCore

/// The silent devices on their own: who is silent, and when each is due again on a manual clock.
@Suite struct SilentDevicesTests {
    let tv = DeviceID.make(hostName: "tv.local")
    let nas = DeviceID.make(hostName: "nas.local")

    func makeSilent() -> SilentDevices {
        SilentDevices(presence: DeviceTable.Presence(offlineAfter: .seconds(60), forgetAfter: .seconds(3600)))
    }

    @Test func aDeviceIsSilentUntilItAnswersOrGoes() {
        var silent = makeSilent()
        silent.note(tv, isAnswering: false, lastAnswer: .zero, isOnline: true, now: .zero)
        silent.note(nas, isAnswering: true, lastAnswer: .zero, isOnline: true, now: .zero)
        #expect(silent.contains(tv) && !silent.contains(nas) && silent.count == 1)

        silent.note(tv, isAnswering: true, lastAnswer: .seconds(5), isOnline: true, now: .seconds(5))
        #expect(!silent.contains(tv), "it answers again")
        #expect(silent.nextDeadline() == nil, "and has no deadline")
        silent.note(nas, isAnswering: false, lastAnswer: .seconds(5), isOnline: true, now: .seconds(5))
        silent.remove(nas)
        #expect(silent.count == 0 && silent.nextDeadline() == nil)

        silent.note(tv, isAnswering: false, lastAnswer: .seconds(5), isOnline: true, now: .seconds(5))
        silent.removeAll()
        #expect(silent.count == 0 && silent.nextDeadline() == nil)
    }

    @Test func anOnlineDeviceIsDueAfterOfflineAfterAndAnOfflineOneAfterForgetAfter() {
        var silent = makeSilent()
        silent.note(tv, isAnswering: false, lastAnswer: .seconds(10), isOnline: true, now: .seconds(10))
        #expect(silent.nextDeadline() == .seconds(70), "60 s since it last answered")
        #expect(silent.popDue(now: .seconds(69)).isEmpty)
        #expect(silent.popDue(now: .seconds(70)) == [tv])
        #expect(silent.nextDeadline() == nil, "taken: its derivation notes it again")

        silent.note(tv, isAnswering: false, lastAnswer: .seconds(10), isOnline: false, now: .seconds(70))
        #expect(silent.nextDeadline() == .seconds(3610), "offline: it goes an hour after it last answered")
        #expect(silent.popDue(now: .seconds(3610)) == [tv])
    }

    @Test func aQuestionDueBeforeThePresenceDeadlineComesFirst() {
        var silent = makeSilent()
        silent.note(
            tv,
            isAnswering: false,
            lastAnswer: .seconds(10),
            isOnline: true,
            questionAt: .seconds(40),
            now: .seconds(10)
        )
        silent.note(nas, isAnswering: false, lastAnswer: .seconds(20), isOnline: true, now: .seconds(20))
        #expect(silent.nextDeadline() == .seconds(40))
        #expect(silent.popDue(now: .seconds(45)) == [tv])
        #expect(silent.nextDeadline() == .seconds(80), "the nas's offline deadline")
    }

    @Test func aDeadlineAlreadyPastIsNotKept() {
        var silent = makeSilent()
        // Online 90 s after it last answered (a Bluetooth advertiser merged with it is heard): its offline deadline
        // is past; the advertiser's own deadline derives it again, and taking it at every check would change nothing.
        silent.note(tv, isAnswering: false, lastAnswer: .seconds(10), isOnline: true, now: .seconds(100))
        #expect(silent.contains(tv) && silent.nextDeadline() == nil)
        #expect(silent.popDue(now: .seconds(1000)).isEmpty)
    }
}
