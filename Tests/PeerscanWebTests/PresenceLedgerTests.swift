import Diffable
import PeerScanClient
import PeerScanModel
import PeerscanWeb
import Testing

@Suite struct PresenceLedgerTests {
    /// The session's update for a change from `old` to `new`.
    private func changed(_ old: ScanSnapshot, _ new: ScanSnapshot) -> MonitorSession.Update {
        .changed(old: old, changes: new.difference(from: old), new: new)
    }

    @Test func aFlipCountsByDirectionAndFirstWordOfItsReason() {
        let online = fixtureSnapshot(devices: [fixtureDevice(1), fixtureDevice(2)])
        let gone = fixtureSnapshot(devices: [
            fixtureDevice(1, online: false, reason: PresenceReason(.unanswered, ["arp", "mdns"])),
            fixtureDevice(2, online: false, reason: PresenceReason(.withdrawn)),
        ])
        let back = fixtureSnapshot(devices: [
            fixtureDevice(1, reason: PresenceReason(.answered, ["arp"])), fixtureDevice(2, online: false),
        ])
        var ledger = PresenceLedger()
        ledger.take(.initial(online), at: 10)
        ledger.take(changed(online, gone), at: 20)
        ledger.take(changed(gone, back), at: 30)
        #expect(ledger.count(.offline, .unanswered) == 1)
        #expect(ledger.count(.offline, .withdrawn) == 1)
        #expect(ledger.count(.online, .answered) == 1)
        #expect(ledger.count(.online, .other) == 0)
        // Device 1 is online again (its time is the scrape's); device 2 was last seen online at 20.
        #expect(ledger.lastOnline[fixtureID(2)] == 20)
    }

    @Test func anUpdateThatLeavesOnlineAloneCountsNothing() {
        let before = fixtureSnapshot(devices: [fixtureDevice(1, name: "a")])
        let after = fixtureSnapshot(devices: [fixtureDevice(1, name: "b")])
        var ledger = PresenceLedger()
        ledger.take(changed(before, after), at: 1)
        #expect(ledger.transitions.isEmpty)
    }

    @Test func aResyncCountsWhatFlippedBetweenTheSnapshotsAndForgetsDevicesGone() {
        let before = fixtureSnapshot(devices: [fixtureDevice(1), fixtureDevice(2, online: false)])
        let after = fixtureSnapshot(devices: [fixtureDevice(1, online: false)])
        var ledger = PresenceLedger()
        ledger.take(.resynced(.daemonRestarted, old: before, new: after), at: 5)
        #expect(ledger.count(.offline, .other) == 1)
        #expect(ledger.lastOnline == [fixtureID(1): 5])
    }

    @Test func aDeletedDeviceLosesItsLastSeenTime() {
        let online = fixtureSnapshot(devices: [fixtureDevice(1)])
        let offline = fixtureSnapshot(devices: [fixtureDevice(1, online: false)])
        let empty = fixtureSnapshot(devices: [])
        var ledger = PresenceLedger()
        ledger.take(changed(online, offline), at: 1)
        ledger.take(changed(offline, empty), at: 2)
        #expect(ledger.lastOnline.isEmpty)
    }
}
