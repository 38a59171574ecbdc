import Foundation
import PeerScanCore
import PeerScanModel
import PeerScanServer
import Testing

@Suite struct PeerScanWireTests {
    static func sampleSnapshot() throws -> ScanSnapshot {
        let device = Device(
            id: DeviceID.make(hostName: "tv.local"),
            hostName: "tv.local",
            displayName: "Living \"Room\" TV / Ü",
            addresses: ["10.0.0.7", "fe80::1%eth0"],
            interfaces: ["eth0"],
            services: [
                DeviceService(
                    name: "Living Room TV",
                    type: "_airplay._tcp",
                    domain: "local",
                    port: 7000,
                    txt: [TXTEntry(key: "flag", value: nil), TXTEntry(key: "model", value: "X1")]
                )
            ]
        )
        return try ScanSnapshot([
            (.config, [.scanning(enabled: true), .host(HostStatus(hostName: "scanner.local", sourceState: .running))]),
            (.networks, [.peer(device)]),
        ])
    }

    @Test(arguments: [nil, true] as [Bool?])
    func theItemByItemEncodingIsWhatJSONEncoderWrites(resync: Bool?) throws {
        let snapshot = try Self.sampleSnapshot()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let expected = try encoder.encode(
            PeerScanWire.MonitorReply(epoch: "e", sequence: 42, snapshot: snapshot, resync: resync)
        )
        let encoded = try PeerScanWire.encodeSnapshotReply(epoch: "e", sequence: 42, snapshot: snapshot, resync: resync)
        #expect(String(decoding: encoded, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
        let decoded = try JSONDecoder().decode(PeerScanWire.MonitorReply.self, from: encoded)
        #expect(decoded.snapshot == snapshot)
        #expect(decoded.sequence == 42)
    }

    @Test func anEmptySnapshotEncodes() throws {
        let encoded = try PeerScanWire.encodeSnapshotReply(
            epoch: "e",
            sequence: 0,
            snapshot: ScanSnapshot(),
            resync: nil
        )
        #expect(String(decoding: encoded, as: UTF8.self) == #"{"epoch":"e","sequence":0,"snapshot":{"sections":[]}}"#)
    }
}
