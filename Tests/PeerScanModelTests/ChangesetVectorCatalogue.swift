// The catalogue of Tests/Vectors/changesets.json: the shared vectors that hold every changeset applier to one answer
// (Swift's `Snapshot.applying(_:)` in ChangesetVectorTests, testclient/applier.py and the page's applier.js in
// Tests/Page). Each vector is `{"name", "model", "before", "changes", "after"}`, or `{…, "error": true}` for a
// changeset every applier must reject, in the wire's JSON (the encoder of every io.peerscan message: what Monitor and
// `peerscand --dump` carry). `model` says which items the snapshots hold: `peerscan` (ScanSnapshot: the config and
// networks sections as peerscand has them) or `generic` (the same shape with small items `{"id", "value"}` and more
// sections, for section moves peerscan's two sections cannot show). Every changeset but the malformed ones is the
// differ's own (`after.difference(from: before)`).
//
// Regenerate after a change to the differ or the wire: PEERSCAN_WRITE_VECTORS=1 swift test --filter ChangesetVectorTests

import Diffable
import Foundation
import PeerScanModel
import SeededRandom

/// An item of the `generic` vectors: an identity and a content.
struct VectorItem: Codable, Hashable, Identifiable, Sendable {
    var id: String
    var value: Int
}

/// A vector whose changeset, the differ's own, does not replay to its `after`.
struct CatalogueError: Error {
    var vector: String
}

typealias GenericSnapshot = Snapshot<String, VectorItem>
typealias GenericChangeset = Changeset<String, VectorItem>

enum ChangesetVectorCatalogue {
    /// The vectors file's text: a JSON array, one vector a line.
    static func fileText() throws -> String {
        "[\n" + (try vectors()).joined(separator: ",\n") + "\n]\n"
    }

    /// Every vector, encoded, in order: the named cases, the random ones, the malformed ones.
    static func vectors() throws -> [String] {
        var lines: [String] = []
        for (name, before, after) in try namedGenericCases() {
            lines.append(try vector(name, model: "generic", before, after))
        }
        for (name, before, after) in try namedScanCases() {
            lines.append(try vector(name, model: "peerscan", before, after))
        }
        for seed in UInt64(1)...30 {
            lines.append(
                try vector("random generic \(seed)", model: "generic", randomGeneric(seed), randomGeneric(seed + 1000))
            )
        }
        for seed in UInt64(1)...30 {
            let pair = try RandomScan(seed: seed, deviceCount: Int(seed % 9)).make()
            lines.append(try vector("random peerscan \(seed)", model: "peerscan", pair.old, pair.new))
        }
        for (name, before, changes) in try malformedCases() {
            lines.append(try malformed(name, before, changes))
        }
        return lines
    }

    // MARK: Encoding

    private static let encoder = PeerScanWire.makeJSONEncoder()

    private static func json(_ value: some Encodable) throws -> String {
        String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    private static func vector<S: Codable, I: Codable & Identifiable & Equatable>(
        _ name: String,
        model: String,
        _ before: Snapshot<S, I>,
        _ after: Snapshot<S, I>
    ) throws -> String where I.ID: Codable & Sendable {
        let changes = after.difference(from: before)
        guard try before.applying(changes) == after else { throw CatalogueError(vector: name) }
        return #"{"name":\#(try json(name)),"model":"\#(model)","before":\#(try json(before)),"#
            + #""changes":\#(try json(changes)),"after":\#(try json(after))}"#
    }

    private static func malformed(
        _ name: String,
        _ before: GenericSnapshot,
        _ changes: GenericChangeset
    ) throws
        -> String
    {
        #"{"name":\#(try json(name)),"model":"generic","before":\#(try json(before)),"#
            + #""changes":\#(try json(changes)),"error":true}"#
    }

    // MARK: Generic cases

    /// A snapshot written as `"A: a b* c | B: d"`: sections by id, items by id, `*` for the content `value: 1`.
    static func generic(_ text: String) throws -> GenericSnapshot {
        var snapshot = GenericSnapshot()
        for part in text.split(separator: "|") {
            let words = part.split(separator: " ")
            guard let first = words.first else { continue }
            let section = String(first.dropLast())
            try snapshot.appendSections([section])
            let items = words.dropFirst().map { word in
                word.hasSuffix("*")
                    ? VectorItem(id: String(word.dropLast()), value: 1) : VectorItem(id: String(word), value: 0)
            }
            try snapshot.appendItems(items, toSection: section)
        }
        return snapshot
    }

    private static func namedGenericCases() throws -> [(String, GenericSnapshot, GenericSnapshot)] {
        let cases: [(String, String, String)] = [
            ("empty changeset", "A: a b | B: c", "A: a b | B: c"),
            ("empty snapshot stays empty", "", ""),
            ("from empty", "", "A: a | B: b c"),
            ("to empty", "A: a b | B: c", ""),
            ("item inserts", "A: a c", "A: a b c d"),
            ("item inserts at the front", "A: c", "A: a b c"),
            ("item deletes", "A: a b c d", "A: b d"),
            ("item updates", "A: a b c", "A: a b* c*"),
            ("move within a section: a rotation is one move", "A: a b c d e", "A: b c d e a"),
            ("move within a section: reversed", "A: a b c d e f", "A: f e d c b a"),
            ("move within a section, updated too", "A: a b c", "A: c* a b"),
            ("moves across sections", "A: a b c | B: d e", "A: a c | B: d b e"),
            ("moves across sections both ways", "A: a b | B: c d", "A: d a | B: b c"),
            ("section insert with new items", "A: a", "A: a | B: b c"),
            ("section insert with items moving in", "A: a b c", "A: a | B: c b"),
            ("section insert in front", "B: b", "A: a | B: b"),
            ("section delete with its items", "A: a | B: b c", "A: a"),
            ("deleted section with items moving out", "A: a | B: b c d", "A: c a d"),
            ("deleted section with items moving out and deleted", "A: a | B: b c d | C: e", "C: d e | A: a b"),
            ("section move", "A: a | B: b | C: c", "C: c | A: a | B: b"),
            ("section swap", "A: a | B: b", "B: b | A: a"),
            ("section move with items moving in and out", "A: a b | B: c d | C: e", "C: e d | A: a | B: b c"),
            ("empty sections", "A: | B: a", "B: | A: a | C:"),
            ("everything at once", "A: a b c | B: d e | C: f g", "D: h | C: g* f a | A: c i | E: e"),
        ]
        return try cases.map { ($0.0, try generic($0.1), try generic($0.2)) }
    }

    /// A random generic snapshot: up to 5 of 6 sections in a random order, up to 24 of 30 items spread over them.
    private static func randomGeneric(_ seed: UInt64) throws -> GenericSnapshot {
        var random = SeededGenerator(seed: seed)
        var snapshot = GenericSnapshot()
        let sections = (0..<6).map { "S\($0)" }.shuffled(using: &random).prefix(Int.random(in: 0...5, using: &random))
        try snapshot.appendSections(Array(sections))
        guard !sections.isEmpty else { return snapshot }
        let items = (0..<30).shuffled(using: &random).prefix(Int.random(in: 0...24, using: &random))
        for item in items {
            try snapshot.appendItems(
                [VectorItem(id: "i\(item)", value: Int.random(in: 0...1, using: &random))],
                toSection: sections.randomElement(using: &random)!
            )
        }
        return snapshot
    }

    // MARK: peerscan's sections

    private static func device(_ number: UInt8, _ name: String?, online: Bool = true) -> ScanItem {
        .device(
            Device(
                id: DeviceID(UUID(uuid: (0xD0, number, 0, 0, 0, 0, 0x50, 0, 0x80, 0, 0, 0, 0, 0, 0, number))),
                hostName: name.map { "\($0.lowercased()).local" },
                displayName: name,
                addresses: ["10.231.0.\(number)"],
                interfaces: ["lan0"],
                services: [],
                online: online
            )
        )
    }

    private static func scan(
        scanning: Bool = true,
        host: HostStatus? = nil,
        networks: [ScanItem]
    ) throws
        -> ScanSnapshot
    {
        let host = host ?? HostStatus(hostName: "scanner.local", sourceState: .running, interfaces: ["lan0"])
        var sections: [(ScanSection, [ScanItem])] = [(.config, [.scanning(enabled: scanning), .host(host)])]
        if scanning { sections.append((.networks, networks)) }
        return try ScanSnapshot(sections)
    }

    private static func namedScanCases() throws -> [(String, ScanSnapshot, ScanSnapshot)] {
        let (ada, bob, cy) = (device(1, "Ada"), device(2, "Bob"), device(3, "Cy"))
        let unnamed = device(4, nil)
        let full = try WireSamples.snapshot()
        var fullOff = try ScanSnapshot([(.config, full.items(inSection: .config) ?? [])])
        try fullOff.updateItems([.scanning(enabled: false)])
        let network = ScanItem.wifiNetwork(WireSamples.wifiNetwork())
        return [
            ("peerscan: empty changeset", try scan(networks: [ada, bob]), try scan(networks: [ada, bob])),
            (
                "peerscan: scanning switched off removes networks", try scan(networks: [ada, bob, cy]),
                try scan(scanning: false, networks: [])
            ),
            (
                "peerscan: scanning switched on brings networks back", try scan(scanning: false, networks: []),
                try scan(networks: [ada, bob, unnamed])
            ),
            ("peerscan: every kind of item, scanning switched off", full, fullOff),
            ("peerscan: every kind of item, scanning switched on", fullOff, full),
            ("peerscan: a device appears", try scan(networks: [ada, cy]), try scan(networks: [ada, bob, cy])),
            ("peerscan: a device leaves", try scan(networks: [ada, bob, cy]), try scan(networks: [ada, cy])),
            (
                "peerscan: a device goes offline", try scan(networks: [ada, bob]),
                try scan(networks: [ada, device(2, "Bob", online: false)])
            ),
            (
                "peerscan: a device renamed moves and updates", try scan(networks: [ada, bob, cy]),
                try scan(networks: [ada, cy, device(2, "Dee")])
            ),
            (
                "peerscan: a Wi-Fi network appears before the devices", try scan(networks: [ada, bob]),
                try scan(networks: [network, ada, bob])
            ),
            (
                "peerscan: the host's state changes", try scan(networks: [ada]),
                try scan(host: HostStatus(sourceState: .failure(reason: "no \"D-Bus\" </script>")), networks: [ada])
            ),
        ]
    }

    // MARK: Malformed changesets

    private static func malformedCases() throws -> [(String, GenericSnapshot, GenericChangeset)] {
        let before = try generic("A: a b c | B: d | C:")
        typealias Change = GenericChangeset
        func path(_ section: Int, _ item: Int) -> ItemIndexPath { ItemIndexPath(section: section, item: item) }
        func make(_ edit: (inout Change) -> Void) -> Change {
            var changes = Change()
            edit(&changes)
            return changes
        }
        let item = VectorItem(id: "x", value: 0)
        return [
            (
                "malformed: delete names another item", before,
                make { $0.itemDeletes = [.init(id: "b", from: path(0, 0))] }
            ),
            ("malformed: delete out of range", before, make { $0.itemDeletes = [.init(id: "a", from: path(0, 3))] }),
            (
                "malformed: delete in a missing section", before,
                make { $0.itemDeletes = [.init(id: "a", from: path(3, 0))] }
            ),
            ("malformed: negative position", before, make { $0.itemDeletes = [.init(id: "c", from: path(0, -1))] }),
            (
                "malformed: the same item deleted twice", before,
                make { $0.itemDeletes = [.init(id: "a", from: path(0, 0)), .init(id: "a", from: path(0, 0))] }
            ),
            (
                "malformed: move names another item", before,
                make { $0.itemMoves = [.init(id: "a", from: path(1, 0), to: path(0, 0))] }
            ),
            (
                "malformed: update names another item", before,
                make { $0.itemUpdates = [.init(item: item, at: path(0, 1))] }
            ),
            (
                "malformed: update out of range", before,
                make { $0.itemUpdates = [.init(item: VectorItem(id: "d", value: 1), at: path(1, 1))] }
            ),
            ("malformed: insert leaves a gap", before, make { $0.itemInserts = [.init(item: item, at: path(1, 2))] }),
            (
                "malformed: insert into a missing section", before,
                make { $0.itemInserts = [.init(item: item, at: path(3, 0))] }
            ),
            (
                "malformed: two items inserted at one position", before,
                make {
                    $0.itemInserts = [
                        .init(item: item, at: path(2, 0)), .init(item: VectorItem(id: "y", value: 0), at: path(2, 0)),
                    ]
                }
            ),
            (
                "malformed: insert duplicates an identifier", before,
                make { $0.itemInserts = [.init(item: VectorItem(id: "d", value: 0), at: path(0, 0))] }
            ),
            (
                "malformed: section deleted with items left in it", before,
                make { $0.sectionDeletes = [.init(id: "B", from: 1)] }
            ),
            (
                "malformed: section delete names another section", before,
                make { $0.sectionDeletes = [.init(id: "C", from: 1)] }
            ),
            (
                "malformed: section move out of range", before,
                make { $0.sectionMoves = [.init(id: "C", from: 3, to: 0)] }
            ),
            ("malformed: section insert leaves a gap", before, make { $0.sectionInserts = [.init(id: "D", at: 4)] }),
            (
                "malformed: section insert duplicates an identifier", before,
                make { $0.sectionInserts = [.init(id: "A", at: 3)] }
            ),
            (
                "malformed: two sections inserted at one position", before,
                make { $0.sectionInserts = [.init(id: "D", at: 3), .init(id: "E", at: 3)] }
            ),
            (
                "malformed: section reload names another section", before,
                make { $0.sectionReloads = [.init(id: "A", at: 1)] }
            ),
        ]
    }
}
