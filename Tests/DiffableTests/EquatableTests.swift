// Equality of snapshots (sections, items, order, content and marks) and of changesets.

import Testing

@testable import Diffable

@Suite struct EquatableTests {
    @Test func snapshotsBuiltDifferentlyButHoldingTheSameAreEqual() throws {
        var edited = TestSnapshot()
        try edited.appendSections(["y"])
        try edited.insertSections(["x"], beforeSection: "y")
        try edited.appendItems(makeItems("B", "A"), toSection: "x")
        try edited.moveItem("A", beforeItem: "B")
        try edited.appendItems([TestItem("C", content: 1)])
        try edited.updateItems([TestItem("C", content: 0)])
        #expect(edited == (try makeSnapshot(["x": "AB", "y": "C"])))
    }

    @Test func snapshotsDifferingInLayoutOrContentAreNotEqual() throws {
        let snapshot = try makeSnapshot(["x": "AB", "y": "C"])
        #expect(snapshot != (try makeSnapshot(["x": "BA", "y": "C"])))
        #expect(snapshot != (try makeSnapshot(["y": "C", "x": "AB"])))
        #expect(snapshot != (try makeSnapshot(["x": "A", "y": "BC"])))
        #expect(snapshot != (try makeSnapshot(["x": "AB", "z": "C"])))
        #expect(snapshot != (try makeSnapshot(["x": "AB", "y": "C", "z": ""])))
        var changed = snapshot
        try changed.updateItems([TestItem("B", content: 1)])
        #expect(snapshot != changed)
    }

    @Test func everyKindOfMarkCounts() throws {
        let snapshot = try makeSnapshot(["x": "AB", "y": "C"])
        var reloadedSection = snapshot
        try reloadedSection.reloadSections(["y"])
        var reloadedItem = snapshot
        try reloadedItem.reloadItems(["A"])
        var reconfiguredItem = snapshot
        try reconfiguredItem.reconfigureItems(["A"])
        for marked in [reloadedSection, reloadedItem, reconfiguredItem] {
            #expect(marked != snapshot)
            #expect(marked.withoutMarks == snapshot)
        }
        #expect(reloadedItem != reconfiguredItem)
    }

    @Test func changesetsCompareEveryList() throws {
        let old = try makeSnapshot(["x": "AB"])
        let new = try makeSnapshot(["x": "BAC"])
        #expect(new.difference(from: old) == new.difference(from: old))
        var changes = new.difference(from: old)
        changes.itemInserts[0].item.content = 1
        #expect(changes != new.difference(from: old))
        #expect(TestChangeset() != new.difference(from: old))
    }
}
