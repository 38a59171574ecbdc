// The resume history: every changeset encoded once as its Monitor reply, a bounded window of them for clients that
// resume, and the same bytes a JSONEncoder makes of a MonitorReply.

import Diffable
import Foundation
import Logging
import NIOCore
import PeerScanCore
import PeerScanModel
import TestSupport
import Testing
import VarlinkServer

@testable import PeerScanServer

/// An update that turns scanning on or off: a real, tiny changeset.
private func update(_ sequence: UInt64) -> StoreUpdate {
    var old = ScanSnapshot()
    try! old.appendSections([.config])
    try! old.appendItems([.scanning(enabled: sequence % 2 == 0)])
    var new = old
    try! new.updateItems([.scanning(enabled: sequence % 2 == 1)])
    return StoreUpdate(sequence: sequence, changes: new.difference(from: old))
}

private func sequences(_ entries: [ChangeHistory.Entry]?) -> [UInt64]? { entries?.map(\.sequence) }

/// An update that inserts `count` devices, each with a TXT value of `txtBytes` bytes: its reply is a little more than
/// `count * txtBytes` bytes.
private func devicesInserted(_ sequence: UInt64, count: Int, txtBytes: Int) -> StoreUpdate {
    var old = ScanSnapshot()
    try! old.appendSections([.networks])
    var new = old
    let value = String(repeating: "x", count: txtBytes)
    try! new.appendItems(
        (0..<count).map { index in
            .device(
                Device(
                    id: DeviceID(UUID()),
                    hostName: "device-\(sequence)-\(index).local",
                    displayName: nil,
                    addresses: [],
                    interfaces: ["eth0"],
                    services: [
                        DeviceService(
                            name: "d",
                            type: "_http._tcp",
                            domain: "local",
                            port: 80,
                            txt: [TXTEntry(key: "v", value: value)]
                        )
                    ]
                )
            )
        },
        toSection: .networks
    )
    return StoreUpdate(sequence: sequence, changes: new.difference(from: old))
}

@Suite struct ChangeHistoryTests {
    @Test func aReplyIsWhatJSONEncoderMakesOfAMonitorReply() throws {
        let change = update(7)
        let expected = try VarlinkPreparedReply(
            PeerScanWire.MonitorReply(epoch: "e-1", sequence: 7, changes: change.changes),
            continues: true
        )
        #expect(try ChangeHistory.reply(for: change, epoch: "e-1").frame == expected.frame)
    }

    @Test func resumesExactlyTheChangesetsAfterTheGivenSequence() {
        let history = ChangeHistory(epoch: "e", countLimit: 10)
        for sequence in 1...5 { history.record(update(UInt64(sequence))) }
        #expect(sequences(history.entries(after: 2, through: 5)) == [3, 4, 5])
        #expect(sequences(history.entries(after: 0, through: 5)) == [1, 2, 3, 4, 5])
        #expect(sequences(history.entries(after: 2, through: 4)) == [3, 4], "not past the subscriber's snapshot")
        #expect(sequences(history.entries(after: 5, through: 5)) == [], "nothing missed")
        #expect(history.entries(after: 6, through: 5) == nil, "a sequence from the future cannot be resumed")
        #expect(history.entries(after: 4, through: 6) == nil, "changesets it does not hold yet")
    }

    @Test func keepsAtMostItsCountAndThenCannotResumeFromBeforeThem() {
        let history = ChangeHistory(epoch: "e", countLimit: 3)
        for sequence in 1...10 { history.record(update(UInt64(sequence))) }
        #expect(history.count == 3)
        #expect(sequences(history.entries(after: 7, through: 10)) == [8, 9, 10])
        #expect(history.entries(after: 6, through: 10) == nil)
    }

    @Test func keepsAtMostItsBytesButAlwaysTheNewest() throws {
        let size = try ChangeHistory.reply(for: update(1), epoch: "e").size
        let history = ChangeHistory(epoch: "e", countLimit: 100, byteLimit: 2 * size + size / 2)
        for sequence in 1...5 { history.record(update(UInt64(sequence))) }
        #expect(history.count == 2)
        let tiny = ChangeHistory(epoch: "e", countLimit: 100, byteLimit: 1)
        tiny.record(update(1))
        tiny.record(update(2))
        #expect(sequences(tiny.entries(after: 1, through: 2)) == [2])
    }

    @Test func theDefaultWindowHoldsItsCountOfChangesetsOfAFewKiB() throws {
        // A device with several services changes by a few KiB: the byte budget must not shorten the 1,024.
        let size = try ChangeHistory.reply(for: devicesInserted(1, count: 1, txtBytes: 3_500), epoch: "e").size
        #expect(size > 3_500 && size * ChangeHistory.defaultCountLimit <= ChangeHistory.defaultByteLimit)
        let history = ChangeHistory(epoch: "e")
        let total = UInt64(ChangeHistory.defaultCountLimit + 50)
        for sequence in 1...total { history.record(devicesInserted(sequence, count: 1, txtBytes: 3_500)) }
        #expect(history.count == ChangeHistory.defaultCountLimit)
        let oldest = total - UInt64(ChangeHistory.defaultCountLimit)
        #expect(history.entries(after: oldest, through: total)?.count == ChangeHistory.defaultCountLimit)
    }

    @Test func aChangesetAsLargeAsASnapshotIsKeptOnlyWhileItIsTheNewest() throws {
        // 100 devices of 45 KB: 4.5 MB, the size of a 10,000-device store's fill (or scanning switched on).
        let history = ChangeHistory(epoch: "e")
        history.record(devicesInserted(1, count: 100, txtBytes: 45_000))
        #expect(history.bytes > ChangeHistory.defaultByteLimit)
        #expect(sequences(history.entries(after: 0, through: 1)) == [1], "the newest is kept for its clients")
        history.record(update(2))
        #expect(history.entries(after: 0, through: 2) == nil, "a resume from before it gets a snapshot")
        #expect(sequences(history.entries(after: 1, through: 2)) == [2])
        #expect(history.bytes < 1_000)
    }

    @Test func aGapStartsTheHistoryOver() {
        let history = ChangeHistory(epoch: "e", countLimit: 10)
        history.record(update(1))
        history.record(update(2))
        history.record(update(5))
        #expect(sequences(history.entries(after: 4, through: 5)) == [5])
        #expect(history.entries(after: 2, through: 5) == nil)
    }

    @Test func aReplyNoLongerHeldIsEncodedAgainTheSame() throws {
        let history = ChangeHistory(epoch: "e", countLimit: 1)
        history.record(update(1))
        let held = try history.reply(for: update(1))
        history.record(update(2))
        let encodedAgain = try history.reply(for: update(1))
        #expect(held.frame == encodedAgain.frame)
    }

    @Test func aStoreRecordsEveryUpdateBeforeItsSequenceIsVisible() async throws {
        let history = ChangeHistory(epoch: "e")
        let store = SnapshotStore(
            isScanning: true,
            interfaces: [],
            recorders: StoreRecorders(updates: { history.record($0) })
        )
        for enabled in [false, true, false] { await store.apply([.setScanning(enabled, reply: nil)]) }
        let sequence = await store.sequence
        #expect(sequence == 3)
        #expect(sequences(history.entries(after: 0, through: sequence)) == [1, 2, 3])
    }
}
