// The snapshot replies prepared once for many clients, and dropped once the store has moved past their sequence.

import Foundation
import NIOCore
import PeerScanCore
import PeerScanModel
import Testing
import VarlinkServer

@testable import PeerScanServer

/// A reply whose parameters name the sequence, and a count of how often one was made.
private final class Encodings: @unchecked Sendable {
    // Only touched from the test's own task.
    var count = 0

    func make(_ sequence: UInt64) -> VarlinkPreparedReply {
        count += 1
        return VarlinkPreparedReply(encodedParameters: Data(#"{"sequence":\#(sequence)}"#.utf8), continues: true)
    }
}

@Suite struct ReplyCacheTests {
    @Test func aSnapshotIsEncodedOnceForItsSequence() throws {
        let cache = ReplyCache()
        let encodings = Encodings()
        for _ in 0..<3 { _ = try cache.snapshot(sequence: 5, kind: .first) { encodings.make(5) } }
        #expect(encodings.count == 1)
        #expect(cache.count == 1)
    }

    @Test func aNewerSequenceDropsTheHeldSnapshots() throws {
        let cache = ReplyCache()
        let encodings = Encodings()
        _ = try cache.snapshot(sequence: 5, kind: .first) { encodings.make(5) }
        _ = try cache.snapshot(sequence: 5, kind: .final) { encodings.make(5) }
        cache.discard(before: 5)
        #expect(cache.count == 2, "not older than 5")
        cache.discard(before: 6)
        #expect(cache.count == 0)
        // Clients that subscribed at 5 together, just before the store moved on, still share one encoding.
        for _ in 0..<3 { _ = try cache.snapshot(sequence: 5, kind: .first) { encodings.make(5) } }
        #expect(encodings.count == 3)
        #expect(cache.count == 1)
        // A newer one replaces it; an older one is then encoded for its client alone.
        _ = try cache.snapshot(sequence: 6, kind: .first) { encodings.make(6) }
        _ = try cache.snapshot(sequence: 5, kind: .first) { encodings.make(5) }
        _ = try cache.snapshot(sequence: 6, kind: .first) { encodings.make(6) }
        #expect(encodings.count == 5)
        #expect(cache.count == 1)
    }

    @Test(arguments: [true, false])
    func aSnapshotReplyWrittenIntoItsFrameIsTheFrameOfItsEncodedBytes(continues: Bool) throws {
        var snapshot = ScanSnapshot()
        try snapshot.appendSections([.config, .networks])
        try snapshot.appendItems([.scanning(enabled: true)], toSection: .config)
        let devices = (0..<50).map { index in
            Device(
                id: DeviceID.make(hostName: "device-\(index).local"),
                hostName: "device-\(index).local",
                displayName: "Device \(index)",
                addresses: ["10.0.0.\(index)"],
                interfaces: ["eth0"],
                services: []
            )
        }
        try snapshot.appendItems(devices.map(ScanItem.device), toSection: .networks)
        let encoded = try PeerScanWire.encodeSnapshotReply(epoch: "e", sequence: 7, snapshot: snapshot, resync: true)
        let copied = VarlinkPreparedReply(encodedParameters: encoded, continues: continues)
        let written = try VarlinkPreparedReply(continues: continues) {
            (frame: inout ByteBuffer) throws(PeerScanWire.EncodingError) in
            try PeerScanWire.encodeSnapshotReply(
                epoch: "e",
                sequence: 7,
                snapshot: snapshot,
                resync: true,
                into: &frame
            )
        }
        #expect(written.size > 50 * 100)
        #expect(written.frame == copied.frame)
    }

    @Test func theHistoryDropsTheSnapshotsWhenItRecordsANewerChangeset() throws {
        let history = ChangeHistory(epoch: "e")
        _ = try history.snapshotReplies.snapshot(sequence: 0, kind: .first) { Encodings().make(0) }
        #expect(history.snapshotReplies.count == 1)
        var old = ScanSnapshot()
        try old.appendSections([.config])
        try old.appendItems([.scanning(enabled: false)])
        var new = old
        try new.updateItems([.scanning(enabled: true)])
        history.record(StoreUpdate(sequence: 1, changes: new.difference(from: old)))
        #expect(history.snapshotReplies.count == 0)
    }
}
