// The queries of a snapshot, on `x: [A, B]; y: []; z: [C, D, E]` (an empty section in the middle) and on an empty one.

import Testing

@testable import Diffable

@Suite struct SnapshotQueryTests {
    let snapshot: TestSnapshot

    init() throws {
        var snapshot = try makeSnapshot(["x": "AB", "y": "", "z": "CDE"])
        try snapshot.updateItems([TestItem("D", content: 4)])
        self.snapshot = snapshot
    }

    @Test func counts() {
        #expect(snapshot.numberOfSections == 3)
        #expect(snapshot.numberOfItems == 5)
        #expect(snapshot.numberOfItems(inSection: "x") == 2)
        #expect(snapshot.numberOfItems(inSection: "y") == 0)
        #expect(snapshot.numberOfItems(inSection: "z") == 3)
        #expect(snapshot.numberOfItems(inSection: "unknown") == nil)
    }

    @Test func identifiers() {
        #expect(snapshot.sectionIdentifiers == ["x", "y", "z"])
        #expect(snapshot.itemIdentifiers == ["A", "B", "C", "D", "E"])
        #expect(snapshot.itemIdentifiers(inSection: "x") == ["A", "B"])
        #expect(snapshot.itemIdentifiers(inSection: "y") == [])
        #expect(snapshot.itemIdentifiers(inSection: "z") == ["C", "D", "E"])
        #expect(snapshot.itemIdentifiers(inSection: "unknown") == nil)
    }

    @Test func itemsAndSections() {
        #expect(
            snapshot.items == [TestItem("A"), TestItem("B"), TestItem("C"), TestItem("D", content: 4), TestItem("E")]
        )
        #expect(snapshot.items(inSection: "z") == [TestItem("C"), TestItem("D", content: 4), TestItem("E")])
        #expect(snapshot.items(inSection: "y") == [])
        #expect(snapshot.items(inSection: "unknown") == nil)
        #expect(snapshot.sections.map(\.id) == ["x", "y", "z"])
        #expect(snapshot.sections.map { $0.items.map(\.id) } == [["A", "B"], [], ["C", "D", "E"]])
    }

    @Test func containment() {
        #expect(snapshot.contains(section: "y"))
        #expect(!snapshot.contains(section: "A"))
        #expect(snapshot.contains(item: "E"))
        #expect(!snapshot.contains(item: "x"))
        #expect(snapshot.sectionIdentifier(containingItem: "B") == "x")
        #expect(snapshot.sectionIdentifier(containingItem: "C") == "z")
        #expect(snapshot.sectionIdentifier(containingItem: "unknown") == nil)
    }

    @Test func positions() {
        #expect(snapshot.index(ofSection: "x") == 0)
        #expect(snapshot.index(ofSection: "z") == 2)
        #expect(snapshot.index(ofSection: "unknown") == nil)
        // Flat indices run across sections, skipping the empty one.
        #expect(["A", "B", "C", "D", "E"].map { snapshot.index(ofItem: $0) } == [0, 1, 2, 3, 4])
        #expect(snapshot.index(ofItem: "unknown") == nil)
        #expect(snapshot.indexPath(ofItem: "B") == ItemIndexPath(section: 0, item: 1))
        #expect(snapshot.indexPath(ofItem: "E") == ItemIndexPath(section: 2, item: 2))
        #expect(snapshot.indexPath(ofItem: "unknown") == nil)
    }

    @Test func itemLookup() {
        #expect(snapshot.item(at: ItemIndexPath(section: 0, item: 0)) == TestItem("A"))
        #expect(snapshot.item(at: ItemIndexPath(section: 2, item: 1)) == TestItem("D", content: 4))
        #expect(snapshot.item(withIdentifier: "D") == TestItem("D", content: 4))
        #expect(snapshot.item(withIdentifier: "unknown") == nil)
    }

    @Test(arguments: [(0, 2), (1, 0), (2, 3), (3, 0), (-1, 0), (0, -1), (Int.max, 0), (0, Int.min)])
    func itemAtAnIndexPathOutOfRangeIsNil(section: Int, item: Int) {
        #expect(snapshot.item(at: ItemIndexPath(section: section, item: item)) == nil)
    }

    @Test func emptySnapshot() {
        let empty = TestSnapshot()
        empty.checkInvariants()
        #expect(empty.numberOfSections == 0)
        #expect(empty.numberOfItems == 0)
        #expect(empty.sectionIdentifiers.isEmpty && empty.itemIdentifiers.isEmpty && empty.items.isEmpty)
        #expect(empty.sections.isEmpty)
        #expect(empty.item(at: ItemIndexPath(section: 0, item: 0)) == nil)
        #expect(empty.reloadedSectionIdentifiers.isEmpty && empty.reloadedItemIdentifiers.isEmpty)
        #expect(empty.reconfiguredItemIdentifiers.isEmpty)
    }
}
