// Hand-written cases of `difference(from:)` with the exact changeset expected, following the index semantics and the
// minimality documented on `Changeset`.

import Testing

@testable import Diffable

/// Expects `new.difference(from: old)` to be exactly `expected`, and to replay to `new`.
private func expectDifference(
    from old: TestSnapshot,
    to new: TestSnapshot,
    is expected: TestChangeset,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let changes = new.difference(from: old)
    #expect(changes == expected, "\(changes.debugDescription)", sourceLocation: sourceLocation)
    #expect(problems(of: changes, from: old, to: new) == [], sourceLocation: sourceLocation)
}

@Suite struct ChangesetSemanticsTests {
    @Test func identicalSnapshotsGiveAnEmptyChangeset() throws {
        let snapshot = try makeSnapshot(["x": "AB", "y": "", "z": "C"])
        let changes = snapshot.difference(from: snapshot)
        #expect(changes.isEmpty)
        #expect(changes.count == 0)
        #expect(changes == TestChangeset())
        #expect(TestSnapshot().difference(from: TestSnapshot()).isEmpty)
    }

    @Test func rotationIsOneMove() throws {
        var forwards = TestChangeset()
        forwards.itemMoves = [.init(id: "A", from: indexPath(0, 0), to: indexPath(0, 4))]
        expectDifference(from: try makeSnapshot(["x": "ABCDE"]), to: try makeSnapshot(["x": "BCDEA"]), is: forwards)

        var backwards = TestChangeset()
        backwards.itemMoves = [.init(id: "E", from: indexPath(0, 4), to: indexPath(0, 0))]
        expectDifference(from: try makeSnapshot(["x": "ABCDE"]), to: try makeSnapshot(["x": "EABCD"]), is: backwards)
    }

    @Test func contentChangeIsOneUpdateNotADeleteAndAnInsert() throws {
        let old = try makeSnapshot(["x": "AB"])
        var new = old
        try new.updateItems([TestItem("B", content: 1)])
        var expected = TestChangeset()
        expected.itemUpdates = [.init(item: TestItem("B", content: 1), at: indexPath(0, 1))]
        expectDifference(from: old, to: new, is: expected)
        #expect(new.difference(from: old).count == 1)
    }

    @Test func marksOnUnchangedContentGiveUpdatesAndSectionReloads() throws {
        let old = try makeSnapshot(["x": "AB", "y": "C"])
        var new = old
        try new.reloadItems(["A"])
        try new.reconfigureItems(["C"])
        try new.reloadSections(["y"])
        var expected = TestChangeset()
        expected.itemUpdates = [
            .init(item: TestItem("A"), at: indexPath(0, 0)),
            .init(item: TestItem("C"), at: indexPath(1, 0)),
        ]
        expected.sectionReloads = [.init(id: "y", at: 1)]
        expectDifference(from: old, to: new, is: expected)
    }

    @Test func marksOfTheOldSnapshotAreIgnored() throws {
        var old = try makeSnapshot(["x": "AB", "y": "C"])
        try old.reloadItems(["A"])
        try old.reconfigureItems(["B"])
        try old.reloadSections(["x"])
        expectDifference(from: old, to: old.withoutMarks, is: TestChangeset())
    }

    @Test func movedAndChangedItemIsAMoveAndAnUpdate() throws {
        let old = try makeSnapshot(["x": "ABC"])
        var new = try makeSnapshot(["x": "BCA"])
        try new.updateItems([TestItem("A", content: 1)])
        var expected = TestChangeset()
        expected.itemMoves = [.init(id: "A", from: indexPath(0, 0), to: indexPath(0, 2))]
        expected.itemUpdates = [.init(item: TestItem("A", content: 1), at: indexPath(0, 2))]
        expectDifference(from: old, to: new, is: expected)
    }

    @Test func deletedSectionListsItsItemsInItemDeletes() throws {
        var expected = TestChangeset()
        expected.sectionDeletes = [.init(id: "x", from: 0)]
        expected.itemDeletes = [.init(id: "A", from: indexPath(0, 0)), .init(id: "B", from: indexPath(0, 1))]
        expectDifference(
            from: try makeSnapshot(["x": "AB", "y": "CD"]),
            to: try makeSnapshot(["y": "CD"]),
            is: expected
        )
    }

    @Test func itemMovedOutOfADeletedSectionIsAMove() throws {
        var expected = TestChangeset()
        expected.sectionDeletes = [.init(id: "x", from: 0)]
        expected.itemDeletes = [.init(id: "B", from: indexPath(0, 1))]
        expected.itemMoves = [.init(id: "A", from: indexPath(0, 0), to: indexPath(0, 1))]
        expectDifference(
            from: try makeSnapshot(["x": "AB", "y": "C"]),
            to: try makeSnapshot(["y": "CA"]),
            is: expected
        )
    }

    @Test func insertedSectionArrivesEmptyAndItsItemsAreInserted() throws {
        var expected = TestChangeset()
        expected.sectionInserts = [.init(id: "n", at: 1)]
        expected.itemInserts = [
            .init(item: TestItem("B"), at: indexPath(1, 0)), .init(item: TestItem("C"), at: indexPath(1, 1)),
        ]
        expectDifference(from: try makeSnapshot(["x": "A"]), to: try makeSnapshot(["x": "A", "n": "BC"]), is: expected)
    }

    @Test func itemMovedIntoAnInsertedSectionIsAMoveEvenAtTheSameIndexPath() throws {
        var expected = TestChangeset()
        expected.sectionInserts = [.init(id: "n", at: 0)]
        expected.itemMoves = [.init(id: "A", from: indexPath(0, 0), to: indexPath(0, 0))]
        expectDifference(from: try makeSnapshot(["x": "A"]), to: try makeSnapshot(["n": "A", "x": ""]), is: expected)
    }

    @Test func movedSectionCarriesItsItems() throws {
        var expected = TestChangeset()
        expected.sectionMoves = [.init(id: "z", from: 2, to: 0)]
        expectDifference(
            from: try makeSnapshot(["x": "AB", "y": "CD", "z": "E"]),
            to: try makeSnapshot(["z": "E", "x": "AB", "y": "CD"]),
            is: expected
        )
    }

    @Test func sectionReloadIsReportedOnlyForSurvivingSections() throws {
        let old = try makeSnapshot(["x": "A"])
        var new = try makeSnapshot(["n": "", "x": "A"])
        try new.reloadSections(["n", "x"])
        var expected = TestChangeset()
        expected.sectionInserts = [.init(id: "n", at: 0)]
        expected.sectionReloads = [.init(id: "x", at: 1)]
        expectDifference(from: old, to: new, is: expected)
    }

    @Test func deletesAndInsertsShiftPositionsButOnlyTheDisplacedItemMoves() throws {
        var expected = TestChangeset()
        expected.itemDeletes = [.init(id: "A", from: indexPath(0, 0))]
        expected.itemInserts = [.init(item: TestItem("X"), at: indexPath(0, 3))]
        expected.itemMoves = [.init(id: "E", from: indexPath(0, 4), to: indexPath(0, 1))]
        expectDifference(from: try makeSnapshot(["x": "ABCDE"]), to: try makeSnapshot(["x": "BECXD"]), is: expected)
    }

    @Test func movesWithinAndAcrossSectionsAreSortedByNewPosition() throws {
        var expected = TestChangeset()
        expected.itemMoves = [
            .init(id: "C", from: indexPath(0, 2), to: indexPath(0, 0)),
            .init(id: "D", from: indexPath(1, 0), to: indexPath(0, 1)),
        ]
        expectDifference(
            from: try makeSnapshot(["x": "ABC", "y": "D"]),
            to: try makeSnapshot(["x": "CDAB", "y": ""]),
            is: expected
        )
    }

    @Test func countAddsUpEveryKindOfChange() throws {
        let old = try makeSnapshot(["x": "AB", "y": "C", "z": "D"])
        var new = try makeSnapshot(["z": "DB", "n": "E", "x": ""])
        try new.updateItems([TestItem("D", content: 1)])
        try new.reloadSections(["x"])
        let changes = new.difference(from: old)
        // y deleted, n inserted, z moved, x reloaded; A and C deleted, E inserted, B moved, D updated.
        #expect(changes.sectionDeletes.count == 1 && changes.sectionInserts.count == 1)
        #expect(changes.sectionMoves.count == 1 && changes.sectionReloads.count == 1)
        #expect(changes.itemDeletes.count == 2 && changes.itemInserts.count == 1)
        #expect(changes.itemMoves.count == 1 && changes.itemUpdates.count == 1)
        #expect(changes.count == 9)
        #expect(!changes.isEmpty)
        #expect(problems(of: changes, from: old, to: new) == [])
    }
}
