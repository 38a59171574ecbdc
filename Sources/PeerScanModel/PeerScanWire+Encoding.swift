import Diffable
import Foundation

// The bytes of the io.peerscan replies that carry a snapshot or a changeset: written here, one item at a time, and
// nowhere else. The result is exactly what ``PeerScanWire/makeJSONEncoder()`` makes of ``PeerScanWire/SnapshotReply``
// or ``PeerScanWire/MonitorReply`` (the property tests in PeerScanModelTests compare the two byte for byte), but the
// encoder's intermediate tree never holds more than one item: encoding 10,000 devices at once would cost tens of MiB
// that the allocator keeps afterwards. The keys are written in the order `.sortedKeys` gives them.

extension PeerScanWire {
    /// A reply that could not be encoded. It is never sent, not even in part: the caller decides what the client
    /// gets instead.
    public struct EncodingError: Error, Sendable, CustomStringConvertible {
        /// What was encoded: `snapshot reply` or `changes reply`.
        public var reply: String
        /// The sequence the reply was for.
        public var sequence: UInt64
        /// What `JSONEncoder` reported.
        public var underlying: any Error

        public var description: String { "cannot encode the \(reply) at sequence \(sequence): \(underlying)" }
    }

    /// An encoder with the options of every io.peerscan message: keys sorted, slashes not escaped.
    public static func makeJSONEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// Encodes a reply that carries a snapshot — `{"epoch":…,"resync":…,"sequence":…,"snapshot":{…}}` — one item
    /// at a time: the bytes of ``SnapshotReply`` (`resync` `nil`) or of a ``MonitorReply`` with a snapshot.
    ///
    /// - Parameters:
    ///   - epoch: The daemon's epoch.
    ///   - sequence: The snapshot's sequence.
    ///   - snapshot: The snapshot.
    ///   - resync: The `resync` field; `nil` leaves it out.
    /// - Returns: The reply's parameters, a JSON object.
    /// - Throws: ``EncodingError`` if a part of the snapshot cannot be encoded.
    /// - Complexity: O(n) in the size of the snapshot; the encoder holds one item at a time.
    public static func encodeSnapshotReply(
        epoch: String,
        sequence: UInt64,
        snapshot: ScanSnapshot,
        resync: Bool?
    ) throws(EncodingError) -> Data {
        var bytes = Data()
        try encodeSnapshotReply(epoch: epoch, sequence: sequence, snapshot: snapshot, resync: resync, into: &bytes)
        return bytes
    }

    /// ``encodeSnapshotReply(epoch:sequence:snapshot:resync:)``, written into `output` (after what it holds): a
    /// server writes a large reply straight into the buffer it sends, instead of into a `Data` it then copies (the
    /// two would be held at once: 2 × 4.2 MB for 10,000 devices).
    ///
    /// - Throws: ``EncodingError`` if a part of the snapshot cannot be encoded; `output` then holds part of the reply.
    /// - Complexity: O(n) in the size of the snapshot; the encoder holds one item at a time.
    public static func encodeSnapshotReply<Output: JSONOutput>(
        epoch: String,
        sequence: UInt64,
        snapshot: ScanSnapshot,
        resync: Bool?,
        into output: inout Output
    ) throws(EncodingError) {
        var json = StreamingJSON(output: output)
        output = Output.placeholder  // one owner while it grows: no copy on write
        defer { output = json.output }
        do {
            json.append(#"{"epoch":"#)
            try json.append(value: epoch)
            if let resync { json.append(resync ? #","resync":true"# : #","resync":false"#) }
            json.append(#","sequence":\#(sequence),"snapshot":"#)
            try json.append(snapshot: snapshot)
            json.append("}")
        } catch {
            throw EncodingError(reply: "snapshot reply", sequence: sequence, underlying: error)
        }
    }

    /// Encodes a reply that carries a changeset — `{"changes":{…},"epoch":…,"sequence":…}` — one change at a time:
    /// the bytes of a ``MonitorReply`` with `changes`.
    ///
    /// - Parameters:
    ///   - epoch: The daemon's epoch.
    ///   - sequence: The sequence the changeset leads to.
    ///   - changes: The changeset.
    /// - Returns: The reply's parameters, a JSON object.
    /// - Throws: ``EncodingError`` if a change cannot be encoded.
    /// - Complexity: O(n) in the size of the changeset; the encoder holds one change at a time.
    public static func encodeChangesReply(
        epoch: String,
        sequence: UInt64,
        changes: ScanChangeset
    ) throws(EncodingError) -> Data {
        do {
            var json = StreamingJSON(output: Data())
            json.append(#"{"changes":"#)
            try json.append(changes: changes)
            json.append(#","epoch":"#)
            try json.append(value: epoch)
            json.append(#","sequence":\#(sequence)}"#)
            return json.output
        } catch {
            throw EncodingError(reply: "changes reply", sequence: sequence, underlying: error)
        }
    }
}

/// Where the streaming reply encoders write
/// (``PeerScanWire/encodeSnapshotReply(epoch:sequence:snapshot:resync:into:)``): `Data`, or a server's own buffer.
public protocol JSONOutput {
    /// An empty value, which the output is swapped with while it is written so that it has one owner.
    static var placeholder: Self { get }
    /// Appends bytes.
    mutating func write(_ bytes: UnsafeRawBufferPointer)
}

extension Data: JSONOutput {
    public static var placeholder: Data { Data() }
    public mutating func write(_ bytes: UnsafeRawBufferPointer) { append(contentsOf: bytes) }
}

/// JSON written piece by piece: literal punctuation and keys, and values `JSONEncoder` encodes one at a time.
private struct StreamingJSON<Output: JSONOutput> {
    private(set) var output: Output
    private let encoder = PeerScanWire.makeJSONEncoder()

    init(output: Output) { self.output = output }

    /// Appends literal JSON.
    mutating func append(_ literal: String) {
        var literal = literal
        literal.withUTF8 { output.write(UnsafeRawBufferPointer($0)) }
    }

    /// Appends one value as `JSONEncoder` writes it.
    mutating func append(value: some Encodable) throws {
        try encoder.encode(value).withUnsafeBytes { output.write($0) }
    }

    /// Appends `[a,b,…]`, one element at a time.
    mutating func append(elements: some Sequence<some Encodable>) throws {
        append("[")
        for (position, element) in elements.enumerated() {
            if position > 0 { append(",") }
            try append(value: element)
        }
        append("]")
    }

    /// Appends `"key":[…]` unless `elements` is empty (`Snapshot+Codable` and `Changeset+Codable` leave empty lists
    /// out), after a comma unless it is the object's first field.
    mutating func append<Element: Encodable>(key: String, ifAny elements: [Element], isFirst: inout Bool) throws {
        guard !elements.isEmpty else { return }
        append(isFirst ? #""\#(key)":"# : #","\#(key)":"#)
        isFirst = false
        try append(elements: elements)
    }

    /// `{"reconfiguredItems":…,"reloadedItems":…,"reloadedSections":…,"sections":[{"id":…,"items":[…]},…]}`, the
    /// marks only when there are any (`Snapshot+Codable`; the store's snapshots have none).
    mutating func append(snapshot: ScanSnapshot) throws {
        append("{")
        var isFirst = true
        try append(key: "reconfiguredItems", ifAny: Array(snapshot.reconfiguredItemIdentifiers), isFirst: &isFirst)
        try append(key: "reloadedItems", ifAny: Array(snapshot.reloadedItemIdentifiers), isFirst: &isFirst)
        try append(key: "reloadedSections", ifAny: Array(snapshot.reloadedSectionIdentifiers), isFirst: &isFirst)
        append(isFirst ? #""sections":["# : #","sections":["#)
        for (index, section) in snapshot.sections.enumerated() {
            append(index == 0 ? #"{"id":"# : #",{"id":"#)
            try append(value: section.id)
            append(#","items":"#)
            try append(elements: section.items)
            append("}")
        }
        append("]}")
    }

    /// `{"itemDeletes":…,…,"sectionReloads":…}`, only the kinds of change there are (`Changeset+Codable`).
    mutating func append(changes: ScanChangeset) throws {
        append("{")
        var isFirst = true
        try append(key: "itemDeletes", ifAny: changes.itemDeletes, isFirst: &isFirst)
        try append(key: "itemInserts", ifAny: changes.itemInserts, isFirst: &isFirst)
        try append(key: "itemMoves", ifAny: changes.itemMoves, isFirst: &isFirst)
        try append(key: "itemUpdates", ifAny: changes.itemUpdates, isFirst: &isFirst)
        try append(key: "sectionDeletes", ifAny: changes.sectionDeletes, isFirst: &isFirst)
        try append(key: "sectionInserts", ifAny: changes.sectionInserts, isFirst: &isFirst)
        try append(key: "sectionMoves", ifAny: changes.sectionMoves, isFirst: &isFirst)
        try append(key: "sectionReloads", ifAny: changes.sectionReloads, isFirst: &isFirst)
        append("}")
    }
}
