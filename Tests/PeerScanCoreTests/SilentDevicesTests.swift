import PeerScanModel
import Testing

@testable import PeerScanCore

/// The silent devices on their own: who is silent, and each one's deadline on a manual clock.
@Suite struct SilentDevicesTests {
    let time = TestTime()
    let tv = DeviceID.make(hostName: "tv.local")
    let nas = DeviceID.make(hostName: "nas.local")

    func makeSilent() -> SilentDevices {
        SilentDevices(presence: DeviceTable.Presence(offlineAfter: .seconds(60), forgetAfter: .seconds(3600)))
    }

    @Test func aDeviceIsSilentUntilItAnswersOrGoes() {
        var silent = makeSilent()
        silent.note(tv, isAnswering: false, lastAnswer: time.now)
        silent.note(nas, isAnswering: true, lastAnswer: time.now)
        #expect(silent.contains(tv))
        #expect(!silent.contains(nas))
        #expect(Set(silent.ids) == [tv])

        silent.note(tv, isAnswering: true, lastAnswer: time.now)
        #expect(!silent.contains(tv), "it answers again")
        silent.note(nas, isAnswering: false, lastAnswer: time.now)
        silent.remove(nas)
        #expect(silent.ids.isEmpty)

        silent.note(tv, isAnswering: false, lastAnswer: time.now)
        silent.removeAll()
        #expect(silent.ids.isEmpty)
    }

    @Test func anOnlineDeviceIsDueAfterOfflineAfterAndAnOfflineOneAfterForgetAfter() {
        var silent = makeSilent()
        time.now = .seconds(10)
        silent.note(tv, isAnswering: false, lastAnswer: time.now)

        time.now = .seconds(69)
        #expect(!silent.isPastDeadline(tv, isOnline: true, now: time.now))
        time.now = .seconds(70)
        #expect(silent.isPastDeadline(tv, isOnline: true, now: time.now), "60 s since it last answered")
        #expect(!silent.isPastDeadline(tv, isOnline: false, now: time.now), "offline: it goes after an hour")

        time.now = .seconds(3610)
        #expect(silent.isPastDeadline(tv, isOnline: false, now: time.now))
        #expect(!silent.isPastDeadline(nas, isOnline: true, now: time.now), "not silent: no deadline")
    }
}
