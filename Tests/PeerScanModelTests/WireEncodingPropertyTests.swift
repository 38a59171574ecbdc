// The streaming encoder of the snapshot and changeset replies against JSONEncoder: on random snapshots of devices
// with awkward strings, and the changesets between them, its bytes are exactly what JSONEncoder (with the protocol's
// options) makes of the Codable reply types, and they decode to the values encoded.
//
// A failure reports its `RandomScan` (a seed and a device count): `try RandomScan(seed: …, deviceCount: …).make()`
// rebuilds its input, for a regression test.

import Diffable
import Foundation
import PeerScanModel
import PropertyBased
import Testing

@Suite struct WireEncodingPropertyTests {
    @Test func aSnapshotReplyIsWhatJSONEncoderMakesOfTheReplyTypes() async {
        await propertyCheck(count: 150, input: randomScans(devices: 0...40)) { scan in
            let (snapshot, _, epoch) = try scan.make()
            let sequence = UInt64(scan.deviceCount) << 40 | 7
            for resync in [nil, true, false] as [Bool?] {
                let encoded = try PeerScanWire.encodeSnapshotReply(
                    epoch: epoch,
                    sequence: sequence,
                    snapshot: snapshot,
                    resync: resync
                )
                let reply = PeerScanWire.MonitorReply(
                    epoch: epoch,
                    sequence: sequence,
                    snapshot: snapshot,
                    resync: resync
                )
                #expect(
                    encoded == (try PeerScanWire.makeJSONEncoder().encode(reply)),
                    "resync \(String(describing: resync))"
                )
                let decoded = try JSONDecoder().decode(PeerScanWire.MonitorReply.self, from: encoded)
                #expect(decoded.snapshot == snapshot && decoded.epoch == epoch && decoded.sequence == sequence)
                #expect(decoded.resync == resync && decoded.changes == nil)
            }
            let getSnapshot = PeerScanWire.SnapshotReply(epoch: epoch, sequence: sequence, snapshot: snapshot)
            #expect(
                try PeerScanWire.encodeSnapshotReply(epoch: epoch, sequence: sequence, snapshot: snapshot, resync: nil)
                    == (try PeerScanWire.makeJSONEncoder().encode(getSnapshot))
            )
        }
    }

    @Test func aChangesReplyIsWhatJSONEncoderMakesOfAMonitorReply() async {
        await propertyCheck(count: 150, input: randomScans(devices: 0...40)) { scan in
            let (old, new, epoch) = try scan.make()
            let changes = new.difference(from: old)
            let encoded = try PeerScanWire.encodeChangesReply(epoch: epoch, sequence: 42, changes: changes)
            let reply = PeerScanWire.MonitorReply(epoch: epoch, sequence: 42, changes: changes)
            #expect(encoded == (try PeerScanWire.makeJSONEncoder().encode(reply)))
            let decoded = try JSONDecoder().decode(PeerScanWire.MonitorReply.self, from: encoded)
            #expect(decoded.changes == changes && decoded.epoch == epoch && decoded.sequence == 42)
            #expect(try old.applying(try #require(decoded.changes)) == new)
        }
    }

    /// Found by the property above: TXT keys `"e\u{301}"` and `"\u{e9} "`, which `String`'s `<` does not order.
    @Test func txtKeysThatStringsLessThanCannotOrderRoundTrip() throws {
        let (old, new, epoch) = try RandomScan(seed: 10_096_499_937_274_743_257, deviceCount: 12).make()
        let changes = new.difference(from: old)
        let encoded = try PeerScanWire.encodeChangesReply(epoch: epoch, sequence: 42, changes: changes)
        let decoded = try JSONDecoder().decode(PeerScanWire.MonitorReply.self, from: encoded)
        #expect(decoded.changes == changes)
        for keys in [["e\u{301}", "\u{e9} "], ["\u{e9} ", "e\u{301}"]] {
            let service = DeviceService(
                name: "n",
                type: "_t._tcp",
                domain: "local",
                port: 1,
                txt: keys.map { TXTEntry(key: $0, value: nil) }
            )
            var device = WireSamples.device()
            device.services = [service]
            let json = try PeerScanWire.makeJSONEncoder().encode(ScanItem.device(device))
            guard case .device(let decoded) = try JSONDecoder().decode(ScanItem.self, from: json) else {
                Issue.record("not a device")
                continue
            }
            let order = decoded.services.first?.txt.map { Array($0.key.unicodeScalars) }
            #expect(order == [["e", "\u{301}"], ["\u{e9}", " "]], "from \(keys)")
        }
    }

    /// Marks are not in the daemon's snapshots, but a snapshot that has them is encoded with them, as by JSONEncoder.
    @Test func aSnapshotWithMarksEncodesItsMarks() throws {
        var snapshot = try WireSamples.snapshot()
        try snapshot.reloadSections([.config])
        try snapshot.reloadItems([WireSamples.device().id])
        try snapshot.reconfigureItems([DeviceID.scanning])
        let encoded = try PeerScanWire.encodeSnapshotReply(epoch: "e", sequence: 1, snapshot: snapshot, resync: nil)
        let reply = PeerScanWire.SnapshotReply(epoch: "e", sequence: 1, snapshot: snapshot)
        #expect(encoded == (try PeerScanWire.makeJSONEncoder().encode(reply)))
        #expect(try JSONDecoder().decode(PeerScanWire.SnapshotReply.self, from: encoded).snapshot == snapshot)
    }

    @Test func theEveryKindChangesetEncodesAsJSONEncoderWritesIt() throws {
        let changes = WireSamples.changesetOfEveryKind()
        let encoded = try PeerScanWire.encodeChangesReply(epoch: "e/1", sequence: 3, changes: changes)
        let reply = PeerScanWire.MonitorReply(epoch: "e/1", sequence: 3, changes: changes)
        #expect(encoded == (try PeerScanWire.makeJSONEncoder().encode(reply)))
        #expect(String(decoding: encoded, as: UTF8.self).hasPrefix(#"{"changes":{"itemDeletes":[{"from":[1,0],"#))
        #expect(String(decoding: encoded, as: UTF8.self).hasSuffix(#"}]},"epoch":"e/1","sequence":3}"#))
    }

    @Test func emptySnapshotAndChangesetEncode() throws {
        let snapshot = try PeerScanWire.encodeSnapshotReply(
            epoch: "e",
            sequence: 0,
            snapshot: ScanSnapshot(),
            resync: nil
        )
        #expect(String(decoding: snapshot, as: UTF8.self) == #"{"epoch":"e","sequence":0,"snapshot":{"sections":[]}}"#)
        let changes = try PeerScanWire.encodeChangesReply(epoch: "e", sequence: 1, changes: ScanChangeset())
        #expect(String(decoding: changes, as: UTF8.self) == #"{"changes":{},"epoch":"e","sequence":1}"#)
    }

    @Test func aKnownDeviceRecordsTimesAreRFC3339UTCToTheSecond() {
        let t0 = Date(timeIntervalSince1970: 1_790_000_000.75)
        let record = KnownDeviceRecord(
            id: DeviceID.host,
            name: nil,
            present: false,
            online: false,
            firstSeen: t0,
            lastSeen: t0 + 40,
            vendor: nil,
            hostNames: [],
            macAddresses: [.init(value: "00:00:0c:00:00:01", firstSeen: t0 + 3600, lastSeen: t0 + 3601)],
            addresses: []
        )
        let wire = PeerScanWire.KnownDevice(record)
        #expect(wire.firstSeen == "2026-09-21T14:13:20Z")
        #expect(wire.lastSeen == "2026-09-21T14:14:00Z")
        #expect(
            wire.macAddresses == [
                .init(value: "00:00:0c:00:00:01", firstSeen: "2026-09-21T15:13:20Z", lastSeen: "2026-09-21T15:13:21Z")
            ]
        )
        #expect(wire.id == record.id && wire.name == nil && wire.hostNames.isEmpty)
    }
}

/// Random scans with a device count in this range.
private func randomScans(devices: ClosedRange<Int>) -> Generator<RandomScan, some Sequence & SendableMetatype> {
    zip(Gen.uint64(), Gen.int(in: devices)).map { RandomScan(seed: $0.0, deviceCount: $0.1) }
}
