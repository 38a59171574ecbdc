// The edits of a snapshot that succeed. Every test calls `checkInvariants()` after every edit; the edits that must be
// refused are in SnapshotErrorTests.

import Testing

@testable import Diffable

@Suite struct SnapshotEditingTests {
    // MARK: Sections

    @Test func initializerLaysOutSectionsAndItemsInOrder() throws {
        let snapshot = try TestSnapshot([("x", makeItems("A", "B")), ("y", []), ("z", makeItems("C"))])
        snapshot.checkInvariants()
        #expect(snapshot.sectionIdentifiers == ["x", "y", "z"])
        #expect(snapshot.itemIdentifiers == ["A", "B", "C"])
        #expect(snapshot.indexPath(ofItem: "C") == ItemIndexPath(section: 2, item: 0))
    }

    @Test func appendSectionsAddsEmptySectionsAtTheEnd() throws {
        var snapshot = TestSnapshot()
        try snapshot.appendSections(["x", "y"])
        snapshot.checkInvariants()
        try snapshot.appendItems(makeItems("A"), toSection: "x")
        snapshot.checkInvariants()
        try snapshot.appendSections(["z"])
        snapshot.checkInvariants()
        #expect(snapshot == (try makeSnapshot(["x": "A", "y": "", "z": ""])))
    }

    @Test func insertSectionsBeforeASectionShiftsTheFollowingItems() throws {
        var snapshot = try makeSnapshot(["x": "A", "y": "B"])
        try snapshot.insertSections(["n", "m"], beforeSection: "y")
        snapshot.checkInvariants()
        #expect(snapshot == (try makeSnapshot(["x": "A", "n": "", "m": "", "y": "B"])))
        try snapshot.insertSections(["first"], beforeSection: "x")
        snapshot.checkInvariants()
        #expect(snapshot.sectionIdentifiers == ["first", "x", "n", "m", "y"])
        #expect(snapshot.indexPath(ofItem: "B") == ItemIndexPath(section: 4, item: 0))
    }

    @Test func insertSectionsAfterASectionShiftsTheFollowingItems() throws {
        var snapshot = try makeSnapshot(["x": "A", "y": "B"])
        try snapshot.insertSections(["n"], afterSection: "x")
        snapshot.checkInvariants()
        #expect(snapshot == (try makeSnapshot(["x": "A", "n": "", "y": "B"])))
        try snapshot.insertSections(["last", "end"], afterSection: "y")
        snapshot.checkInvariants()
        #expect(snapshot.sectionIdentifiers == ["x", "n", "y", "last", "end"])
        #expect(snapshot.indexPath(ofItem: "B") == ItemIndexPath(section: 2, item: 0))
    }

    @Test func deleteSectionsRemovesSeveralSectionsWithTheirItemsAndMarks() throws {
        var snapshot = try makeSnapshot(["w": "AB", "x": "C", "y": "", "z": "DE"])
        try snapshot.reloadSections(["w", "x"])
        try snapshot.reloadItems(["A", "C"])
        try snapshot.reconfigureItems(["B", "E"])
        try snapshot.deleteSections(["z", "w"])
        snapshot.checkInvariants()
        #expect(snapshot.withoutMarks == (try makeSnapshot(["x": "C", "y": ""])))
        #expect(!snapshot.contains(item: "A") && !snapshot.contains(item: "E"))
        #expect(snapshot.reloadedSectionIdentifiers == ["x"])
        #expect(snapshot.reloadedItemIdentifiers == ["C"])
        #expect(snapshot.reconfiguredItemIdentifiers == [])
        try snapshot.deleteSections([])
        snapshot.checkInvariants()
        #expect(snapshot.sectionIdentifiers == ["x", "y"])
    }

    /// A move of section `section` before or after `anchor` in `p: A; q: B; r: C; s: D; t: E`, and the section order
    /// it gives.
    struct SectionMove: Sendable, CustomTestStringConvertible {
        var section: String
        var isBefore: Bool
        var anchor: String
        var expected: String

        var testDescription: String { "\(section) \(isBefore ? "before" : "after") \(anchor) gives \(expected)" }

        static let all: [SectionMove] = [
            // Forwards, adjacent and far.
            .init(section: "p", isBefore: false, anchor: "q", expected: "qprst"),
            .init(section: "p", isBefore: true, anchor: "r", expected: "qprst"),
            .init(section: "p", isBefore: false, anchor: "t", expected: "qrstp"),
            .init(section: "p", isBefore: true, anchor: "t", expected: "qrspt"),
            .init(section: "q", isBefore: false, anchor: "s", expected: "prsqt"),
            // Backwards, adjacent and far.
            .init(section: "q", isBefore: true, anchor: "p", expected: "qprst"),
            .init(section: "r", isBefore: false, anchor: "p", expected: "prqst"),
            .init(section: "t", isBefore: true, anchor: "p", expected: "tpqrs"),
            .init(section: "t", isBefore: false, anchor: "p", expected: "ptqrs"),
            .init(section: "s", isBefore: true, anchor: "q", expected: "psqrt"),
            // Already in place.
            .init(section: "q", isBefore: false, anchor: "p", expected: "pqrst"),
            .init(section: "q", isBefore: true, anchor: "r", expected: "pqrst"),
        ]
    }

    @Test(arguments: SectionMove.all)
    func moveSectionCarriesItsItems(_ move: SectionMove) throws {
        var snapshot = try makeSnapshot(["p": "A", "q": "B", "r": "C", "s": "D", "t": "E"])
        try snapshot.reloadSections([move.section])
        if move.isBefore {
            try snapshot.moveSection(move.section, beforeSection: move.anchor)
        } else {
            try snapshot.moveSection(move.section, afterSection: move.anchor)
        }
        snapshot.checkInvariants()
        #expect(snapshot.sectionIdentifiers == move.expected.map(String.init))
        let itemOfSection: [String: String] = ["p": "A", "q": "B", "r": "C", "s": "D", "t": "E"]
        #expect(snapshot.itemIdentifiers == move.expected.map { itemOfSection[String($0)]! })
        #expect(snapshot.reloadedSectionIdentifiers == [move.section])
    }

    @Test func reloadSectionsMarksSections() throws {
        var snapshot = try makeSnapshot(["x": "A", "y": "", "z": ""])
        try snapshot.reloadSections(["x", "y"])
        snapshot.checkInvariants()
        try snapshot.reloadSections(["y", "z"])
        snapshot.checkInvariants()
        #expect(snapshot.reloadedSectionIdentifiers == ["x", "y", "z"])
        #expect(snapshot.reloadedItemIdentifiers.isEmpty && snapshot.reconfiguredItemIdentifiers.isEmpty)
    }

    // MARK: Items

    @Test func appendItemsGoesToTheNamedSectionAndShiftsTheFollowingOnes() throws {
        var snapshot = try makeSnapshot(["x": "A", "y": "", "z": "B"])
        try snapshot.appendItems(makeItems("C", "D"), toSection: "x")
        snapshot.checkInvariants()
        try snapshot.appendItems(makeItems("E"), toSection: "y")
        snapshot.checkInvariants()
        #expect(snapshot == (try makeSnapshot(["x": "ACD", "y": "E", "z": "B"])))
        #expect(snapshot.index(ofItem: "B") == 4)
    }

    @Test func appendItemsGoesToTheLastSectionByDefault() throws {
        var snapshot = try makeSnapshot(["x": "A", "y": "B"])
        try snapshot.appendItems(makeItems("C", "D"))
        snapshot.checkInvariants()
        try snapshot.appendItems([])
        snapshot.checkInvariants()
        #expect(snapshot == (try makeSnapshot(["x": "A", "y": "BCD"])))
    }

    @Test func insertItemsBeforeAnItem() throws {
        var snapshot = try makeSnapshot(["x": "AB", "y": "C"])
        try snapshot.insertItems(makeItems("D", "E"), beforeItem: "A")
        snapshot.checkInvariants()
        try snapshot.insertItems(makeItems("F"), beforeItem: "B")
        snapshot.checkInvariants()
        try snapshot.insertItems(makeItems("G"), beforeItem: "C")
        snapshot.checkInvariants()
        #expect(snapshot == (try makeSnapshot(["x": "DEAFB", "y": "GC"])))
    }

    @Test func insertItemsAfterAnItem() throws {
        var snapshot = try makeSnapshot(["x": "AB", "y": "C"])
        try snapshot.insertItems(makeItems("D", "E"), afterItem: "A")
        snapshot.checkInvariants()
        try snapshot.insertItems(makeItems("F"), afterItem: "B")
        snapshot.checkInvariants()
        try snapshot.insertItems(makeItems("G"), afterItem: "C")
        snapshot.checkInvariants()
        #expect(snapshot == (try makeSnapshot(["x": "ADEBF", "y": "CG"])))
    }

    @Test func deleteItemsFromSeveralSectionsAtOnceWithTheirMarks() throws {
        var snapshot = try makeSnapshot(["x": "ABCD", "y": "", "z": "EFG"])
        try snapshot.reloadItems(["A", "B"])
        try snapshot.reconfigureItems(["F", "G"])
        try snapshot.deleteItems(["F", "A", "C", "G"])
        snapshot.checkInvariants()
        #expect(snapshot.withoutMarks == (try makeSnapshot(["x": "BD", "y": "", "z": "E"])))
        #expect(snapshot.reloadedItemIdentifiers == ["B"])
        #expect(snapshot.reconfiguredItemIdentifiers == [])
        try snapshot.deleteItems([])
        snapshot.checkInvariants()
        #expect(snapshot.numberOfItems == 3)
        try snapshot.deleteItems(["E", "E"])
        snapshot.checkInvariants()
        #expect(snapshot.withoutMarks == (try makeSnapshot(["x": "BD", "y": "", "z": ""])))
    }

    @Test func deleteAllItemsRemovesTheSectionsAndMarksToo() throws {
        var snapshot = try makeSnapshot(["x": "AB", "y": "C"])
        try snapshot.reloadSections(["x"])
        try snapshot.reloadItems(["A"])
        try snapshot.reconfigureItems(["C"])
        snapshot.deleteAllItems()
        snapshot.checkInvariants()
        #expect(snapshot == TestSnapshot())
        #expect(snapshot.numberOfSections == 0 && snapshot.numberOfItems == 0)
        #expect(snapshot.reloadedSectionIdentifiers.isEmpty && snapshot.reloadedItemIdentifiers.isEmpty)
    }

    /// A move of item `item` before or after `anchor` in `x: ABCDE; y: FG`, and the layout it gives.
    struct ItemMove: Sendable, CustomTestStringConvertible {
        var item: String
        var isBefore: Bool
        var anchor: String
        var x: String
        var y: String

        var testDescription: String { "\(item) \(isBefore ? "before" : "after") \(anchor) gives x: \(x), y: \(y)" }

        static let all: [ItemMove] = [
            // Inside one section, forwards, adjacent and far.
            .init(item: "A", isBefore: false, anchor: "B", x: "BACDE", y: "FG"),
            .init(item: "A", isBefore: true, anchor: "C", x: "BACDE", y: "FG"),
            .init(item: "A", isBefore: false, anchor: "E", x: "BCDEA", y: "FG"),
            .init(item: "B", isBefore: true, anchor: "E", x: "ACDBE", y: "FG"),
            .init(item: "F", isBefore: false, anchor: "G", x: "ABCDE", y: "GF"),
            // Inside one section, backwards, adjacent and far.
            .init(item: "B", isBefore: true, anchor: "A", x: "BACDE", y: "FG"),
            .init(item: "C", isBefore: false, anchor: "A", x: "ACBDE", y: "FG"),
            .init(item: "E", isBefore: true, anchor: "A", x: "EABCD", y: "FG"),
            .init(item: "E", isBefore: false, anchor: "B", x: "ABECD", y: "FG"),
            .init(item: "G", isBefore: true, anchor: "F", x: "ABCDE", y: "GF"),
            // Already in place.
            .init(item: "B", isBefore: false, anchor: "A", x: "ABCDE", y: "FG"),
            .init(item: "B", isBefore: true, anchor: "C", x: "ABCDE", y: "FG"),
            // Across sections, to a later and to an earlier section.
            .init(item: "A", isBefore: true, anchor: "F", x: "BCDE", y: "AFG"),
            .init(item: "C", isBefore: false, anchor: "G", x: "ABDE", y: "FGC"),
            .init(item: "E", isBefore: false, anchor: "F", x: "ABCD", y: "FEG"),
            .init(item: "F", isBefore: true, anchor: "A", x: "FABCDE", y: "G"),
            .init(item: "G", isBefore: false, anchor: "E", x: "ABCDEG", y: "F"),
            .init(item: "F", isBefore: false, anchor: "C", x: "ABCFDE", y: "G"),
        ]
    }

    @Test(arguments: ItemMove.all)
    func moveItemKeepsItsContentAndMarks(_ move: ItemMove) throws {
        var snapshot = try makeSnapshot(["x": "ABCDE", "y": "FG"])
        try snapshot.updateItems([TestItem(move.item, content: 7)])
        try snapshot.reloadItems([move.item])
        if move.isBefore {
            try snapshot.moveItem(move.item, beforeItem: move.anchor)
        } else {
            try snapshot.moveItem(move.item, afterItem: move.anchor)
        }
        snapshot.checkInvariants()
        var expected = try makeSnapshot(["x": move.x, "y": move.y])
        try expected.updateItems([TestItem(move.item, content: 7)])
        try expected.reloadItems([move.item])
        #expect(snapshot == expected)
    }

    @Test func updateItemsReplacesContentInPlace() throws {
        var snapshot = try makeSnapshot(["x": "AB", "y": "C"])
        try snapshot.updateItems([TestItem("C", content: 3), TestItem("A", content: 1)])
        snapshot.checkInvariants()
        #expect(snapshot.items == [TestItem("A", content: 1), TestItem("B"), TestItem("C", content: 3)])
        #expect(snapshot.itemIdentifiers == ["A", "B", "C"])
        #expect(snapshot.reloadedItemIdentifiers.isEmpty && snapshot.reconfiguredItemIdentifiers.isEmpty)
    }

    @Test func reloadAndReconfigureItemsMarkItems() throws {
        var snapshot = try makeSnapshot(["x": "AB", "y": "C"])
        try snapshot.reloadItems(["A", "C"])
        snapshot.checkInvariants()
        try snapshot.reconfigureItems(["B"])
        snapshot.checkInvariants()
        try snapshot.reconfigureItems(["C"])
        snapshot.checkInvariants()
        #expect(snapshot.reloadedItemIdentifiers == ["A", "C"])
        #expect(snapshot.reconfiguredItemIdentifiers == ["B", "C"])
        #expect(snapshot.reloadedSectionIdentifiers.isEmpty)
        #expect(snapshot.withoutMarks == (try makeSnapshot(["x": "AB", "y": "C"])))
    }

    @Test func removeMarksClearsEveryKindOfMark() throws {
        var snapshot = try makeSnapshot(["x": "AB", "y": "C"])
        try snapshot.reloadSections(["y"])
        try snapshot.reloadItems(["A"])
        try snapshot.reconfigureItems(["B"])
        snapshot.removeMarks()
        snapshot.checkInvariants()
        #expect(snapshot.reloadedSectionIdentifiers.isEmpty)
        #expect(snapshot.reloadedItemIdentifiers.isEmpty)
        #expect(snapshot.reconfiguredItemIdentifiers.isEmpty)
        #expect(snapshot == (try makeSnapshot(["x": "AB", "y": "C"])))
    }
}
