import Foundation
import PeerScanModel

extension PeerScanWire {
    /// Encodes a reply that carries a snapshot — `{"epoch":…,"resync":…,"sequence":…,"snapshot":{…}}`, keys sorted
    /// as `JSONEncoder` with `.sortedKeys` writes them — one item at a time.
    ///
    /// The result is the same JSON a `JSONEncoder` makes of ``SnapshotReply`` or ``MonitorReply``, but the encoder's
    /// intermediate tree never holds more than one item: encoding 10,000 devices at once would cost tens of MiB
    /// that the allocator keeps afterwards.
    ///
    /// - Complexity: O(n) in the size of the snapshot.
    public static func encodeSnapshotReply(
        epoch: String,
        sequence: UInt64,
        snapshot: ScanSnapshot,
        resync: Bool?
    ) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var json = Data(#"{"epoch":"#.utf8)
        json.append(try encoder.encode(epoch))
        if let resync { json.append(Data(#","resync":\#(resync)"#.utf8)) }
        json.append(Data(#","sequence":\#(sequence),"snapshot":{"sections":["#.utf8))
        for (index, section) in snapshot.sections.enumerated() {
            json.append(Data((index == 0 ? #"{"id":"# : #",{"id":"#).utf8))
            json.append(try encoder.encode(section.id))
            json.append(Data(#","items":["#.utf8))
            for (position, item) in section.items.enumerated() {
                if position > 0 { json.append(UInt8(ascii: ",")) }
                json.append(try encoder.encode(item))
            }
            json.append(Data("]}".utf8))
        }
        json.append(Data("]}}".utf8))
        return json
    }
}
