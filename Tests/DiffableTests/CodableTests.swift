// The wire forms of snapshots and changesets (documented in Snapshot+Codable.swift and Changeset+Codable.swift): round
// trips, the exact JSON, and the refusal of JSON that breaks a snapshot's invariants.

import Foundation
import Testing

@testable import Diffable

private func encodedJSON(_ value: some Encodable) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return String(decoding: try encoder.encode(value), as: UTF8.self)
}

private func decode<T: Decodable>(_ type: T.Type, from json: String) throws -> T {
    try JSONDecoder().decode(type, from: Data(json.utf8))
}

@Suite struct CodableTests {
    // MARK: Snapshot

    @Test func snapshotRoundTripKeepsItemsContentAndMarks() throws {
        var snapshot = try makeSnapshot(["x": "AB", "y": "", "z": "CDE"])
        try snapshot.updateItems([TestItem("D", content: 4)])
        try snapshot.reloadSections(["y", "z"])
        try snapshot.reloadItems(["A", "E"])
        try snapshot.reconfigureItems(["B", "D"])
        let decoded = try decode(TestSnapshot.self, from: try encodedJSON(snapshot))
        decoded.checkInvariants()
        #expect(decoded == snapshot)
    }

    @Test func snapshotJSONShape() throws {
        var snapshot = try makeSnapshot(["x": "", "y": ""])
        try snapshot.appendItems([TestItem("A", content: 1)], toSection: "x")
        #expect(
            try encodedJSON(snapshot)
                == #"{"sections":[{"id":"x","items":[{"content":1,"id":"A"}]},{"id":"y","items":[]}]}"#
        )
        try snapshot.reloadSections(["y"])
        try snapshot.reloadItems(["A"])
        try snapshot.reconfigureItems(["A"])
        #expect(
            try encodedJSON(snapshot)
                == #"{"reconfiguredItems":["A"],"reloadedItems":["A"],"reloadedSections":["y"],"#
                + #""sections":[{"id":"x","items":[{"content":1,"id":"A"}]},{"id":"y","items":[]}]}"#
        )
        #expect(try encodedJSON(TestSnapshot()) == #"{"sections":[]}"#)
    }

    @Test(arguments: [
        #"{"sections":[{"id":"x","items":[]},{"id":"x","items":[]}]}"#,
        #"{"sections":[{"id":"x","items":[{"id":"A","content":0},{"id":"A","content":1}]}]}"#,
        #"{"sections":[{"id":"x","items":[{"id":"A","content":0}]},{"id":"y","items":[{"id":"A","content":0}]}]}"#,
        #"{"sections":[{"id":"x","items":[]}],"reloadedSections":["y"]}"#,
        #"{"sections":[{"id":"x","items":[]}],"reloadedItems":["A"]}"#,
        #"{"sections":[{"id":"x","items":[]}],"reconfiguredItems":["A"]}"#,
    ])
    func snapshotThatBreaksAnInvariantIsRefusedAsCorrupted(json: String) {
        let error = #expect(throws: DecodingError.self) { try decode(TestSnapshot.self, from: json) }
        guard case .dataCorrupted = error else {
            Issue.record("expected dataCorrupted, got \(String(describing: error))")
            return
        }
    }

    @Test func snapshotWithoutSectionsKeyIsRefused() {
        #expect(throws: DecodingError.self) { try decode(TestSnapshot.self, from: #"{"reloadedItems":[]}"#) }
    }

    // MARK: Changeset

    @Test func changesetRoundTripReplaysTheSame() throws {
        let old = try makeSnapshot(["x": "AB", "y": "C", "z": "D"])
        var new = try makeSnapshot(["z": "DB", "n": "E", "x": ""])
        try new.updateItems([TestItem("D", content: 1)])
        try new.reloadSections(["x"])
        let changes = new.difference(from: old)
        let decoded = try decode(TestChangeset.self, from: try encodedJSON(changes))
        #expect(decoded == changes)
        #expect(try old.applying(decoded) == new.withoutMarks)
    }

    @Test func changesetJSONShapeOmitsEmptyLists() throws {
        #expect(try encodedJSON(TestChangeset()) == "{}")
        var changes = TestChangeset()
        changes.sectionMoves = [.init(id: "y", from: 1, to: 0)]
        changes.itemDeletes = [.init(id: "B", from: indexPath(0, 1))]
        #expect(
            try encodedJSON(changes)
                == #"{"itemDeletes":[{"from":[0,1],"id":"B"}],"sectionMoves":[{"from":1,"id":"y","to":0}]}"#
        )
    }

    @Test func changesetJSONShapeWithEveryList() throws {
        var changes = TestChangeset()
        changes.sectionDeletes = [.init(id: "d", from: 1)]
        changes.sectionInserts = [.init(id: "n", at: 0)]
        changes.sectionMoves = [.init(id: "m", from: 2, to: 1)]
        changes.sectionReloads = [.init(id: "r", at: 3)]
        changes.itemDeletes = [.init(id: "B", from: indexPath(1, 4))]
        changes.itemInserts = [.init(item: TestItem("A"), at: indexPath(1, 0))]
        changes.itemMoves = [.init(id: "C", from: indexPath(0, 2), to: indexPath(2, 1))]
        changes.itemUpdates = [.init(item: TestItem("D", content: 5), at: indexPath(1, 3))]
        let json =
            #"{"itemDeletes":[{"from":[1,4],"id":"B"}],"itemInserts":[{"at":[1,0],"item":{"content":0,"id":"A"}}],"#
            + #""itemMoves":[{"from":[0,2],"id":"C","to":[2,1]}],"#
            + #""itemUpdates":[{"at":[1,3],"item":{"content":5,"id":"D"}}],"sectionDeletes":[{"from":1,"id":"d"}],"#
            + #""sectionInserts":[{"at":0,"id":"n"}],"sectionMoves":[{"from":2,"id":"m","to":1}],"#
            + #""sectionReloads":[{"at":3,"id":"r"}]}"#
        #expect(try encodedJSON(changes) == json)
        #expect(try decode(TestChangeset.self, from: json) == changes)
    }

    @Test func missingListsDecodeAsEmpty() throws {
        #expect(try decode(TestChangeset.self, from: "{}") == TestChangeset())
        var expected = TestChangeset()
        expected.itemMoves = [.init(id: "A", from: indexPath(0, 0), to: indexPath(1, 2))]
        #expect(
            try decode(TestChangeset.self, from: #"{"itemMoves":[{"id":"A","from":[0,0],"to":[1,2]}]}"#) == expected
        )
    }

    @Test(arguments: ["[]", "[1]", "[1,2,3]", #"{"section":1,"item":2}"#])
    func indexPathIsExactlyTwoNumbers(json: String) throws {
        #expect(throws: DecodingError.self) { try decode(ItemIndexPath.self, from: json) }
        #expect(try decode(ItemIndexPath.self, from: "[3,4]") == indexPath(3, 4))
    }
}
