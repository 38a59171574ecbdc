// `applying(_:)`: valid changesets give their target; changesets built by hand that do not fit the base are refused
// with the right `ChangesetError` code.

import Testing

@testable import Diffable

/// A changeset that does not fit `x: [A, B]; y: [C]; z: []`, and the code of the error it must raise.
struct MisfitChangeset: Sendable, CustomTestStringConvertible {
    var testDescription: String
    var code: ChangesetError.Code
    var changes: TestChangeset

    init(_ name: String, _ code: ChangesetError.Code, _ build: (inout TestChangeset) -> Void) {
        self.testDescription = name
        self.code = code
        var changes = TestChangeset()
        build(&changes)
        self.changes = changes
    }

    static func makeBase() throws -> TestSnapshot {
        try makeSnapshot(["x": "AB", "y": "C", "z": ""])
    }

    static let all: [MisfitChangeset] = [
        // Identifiers that are not at the positions named.
        .init("item delete names another item", .identifierMismatch) {
            $0.itemDeletes = [.init(id: "B", from: indexPath(0, 0))]
        },
        .init("item move names another item", .identifierMismatch) {
            $0.itemMoves = [.init(id: "C", from: indexPath(0, 1), to: indexPath(1, 0))]
        },
        .init("section delete names another section", .identifierMismatch) {
            $0.sectionDeletes = [.init(id: "y", from: 2)]
        },
        .init("section move names another section", .identifierMismatch) {
            $0.sectionMoves = [.init(id: "x", from: 1, to: 0)]
        },
        .init("item update names another item", .identifierMismatch) {
            $0.itemUpdates = [.init(item: TestItem("B", content: 1), at: indexPath(0, 0))]
        },
        .init("section reload names another section", .identifierMismatch) {
            $0.sectionReloads = [.init(id: "x", at: 1)]
        },
        // Positions outside the snapshot.
        .init("item delete past the end of its section", .positionOutOfRange) {
            $0.itemDeletes = [.init(id: "A", from: indexPath(0, 2))]
        },
        .init("item delete in a section past the end", .positionOutOfRange) {
            $0.itemDeletes = [.init(id: "A", from: indexPath(3, 0))]
        },
        .init("item move from a negative position", .positionOutOfRange) {
            $0.itemMoves = [.init(id: "A", from: indexPath(0, -1), to: indexPath(1, 0))]
        },
        .init("section delete past the end", .positionOutOfRange) {
            $0.sectionDeletes = [.init(id: "z", from: 3)]
        },
        .init("section insert that leaves a gap", .positionOutOfRange) {
            $0.sectionInserts = [.init(id: "n", at: 4)]
        },
        .init("item insert that leaves a gap", .positionOutOfRange) {
            $0.itemInserts = [.init(item: TestItem("N"), at: indexPath(1, 2))]
        },
        .init("item insert into a section past the end", .positionOutOfRange) {
            $0.itemInserts = [.init(item: TestItem("N"), at: indexPath(3, 0))]
        },
        .init("item update in an empty section", .positionOutOfRange) {
            $0.itemUpdates = [.init(item: TestItem("A", content: 1), at: indexPath(2, 0))]
        },
        .init("section reload past the end", .positionOutOfRange) {
            $0.sectionReloads = [.init(id: "z", at: 3)]
        },
        // The same old position emptied twice.
        .init("item deleted twice", .positionConflict) {
            $0.itemDeletes = [.init(id: "A", from: indexPath(0, 0)), .init(id: "A", from: indexPath(0, 0))]
        },
        .init("item deleted and moved", .positionConflict) {
            $0.itemDeletes = [.init(id: "C", from: indexPath(1, 0))]
            $0.itemMoves = [.init(id: "C", from: indexPath(1, 0), to: indexPath(0, 0))]
        },
        .init("section deleted twice", .positionConflict) {
            $0.sectionDeletes = [.init(id: "z", from: 2), .init(id: "z", from: 2)]
        },
        .init("section deleted and moved", .positionConflict) {
            $0.sectionDeletes = [.init(id: "z", from: 2)]
            $0.sectionMoves = [.init(id: "z", from: 2, to: 0)]
        },
        // The same new position filled twice ("two changes name the same position").
        .init("two items inserted at the same position", .positionConflict) {
            $0.itemInserts = [
                .init(item: TestItem("N"), at: indexPath(2, 0)), .init(item: TestItem("M"), at: indexPath(2, 0)),
            ]
        },
        .init("section inserted where another moves", .positionConflict) {
            $0.sectionInserts = [.init(id: "n", at: 0)]
            $0.sectionMoves = [.init(id: "z", from: 2, to: 0)]
        },
        // A section deleted with items neither deleted nor moved.
        .init("section deleted with its items left in it", .sectionNotEmpty) {
            $0.sectionDeletes = [.init(id: "x", from: 0)]
            $0.itemDeletes = [.init(id: "A", from: indexPath(0, 0))]
        },
        // A result with an identifier twice.
        .init("item inserted while still present", .duplicateIdentifier) {
            $0.itemInserts = [.init(item: TestItem("A"), at: indexPath(2, 0))]
        },
        .init("section inserted while still present", .duplicateIdentifier) {
            $0.sectionInserts = [.init(id: "y", at: 3)]
        },
    ]
}

@Suite struct ApplyingTests {
    @Test(arguments: MisfitChangeset.all)
    func changesetThatDoesNotFitIsRefused(_ misfit: MisfitChangeset) throws {
        let base = try MisfitChangeset.makeBase()
        let error = #expect(throws: ChangesetError.self) { try base.applying(misfit.changes) }
        #expect(error?.code == misfit.code, "\(String(describing: error))")
    }

    @Test func handWrittenChangesetGivesItsTarget() throws {
        let base = try MisfitChangeset.makeBase()
        var changes = TestChangeset()
        changes.sectionDeletes = [.init(id: "y", from: 1)]
        changes.sectionInserts = [.init(id: "n", at: 0)]
        changes.sectionMoves = [.init(id: "z", from: 2, to: 1)]
        changes.itemDeletes = [.init(id: "B", from: indexPath(0, 1))]
        changes.itemMoves = [.init(id: "C", from: indexPath(1, 0), to: indexPath(2, 0))]
        changes.itemInserts = [
            .init(item: TestItem("N"), at: indexPath(0, 0)), .init(item: TestItem("M"), at: indexPath(2, 2)),
        ]
        changes.itemUpdates = [.init(item: TestItem("A", content: 5), at: indexPath(2, 1))]
        let result = try base.applying(changes)
        result.checkInvariants()
        var expected = try makeSnapshot(["n": "N", "z": "", "x": "CAM"])
        try expected.updateItems([TestItem("A", content: 5)])
        #expect(result == expected)
    }

    @Test func applyingDropsTheMarksOfTheBase() throws {
        var base = try MisfitChangeset.makeBase()
        try base.reloadSections(["x"])
        try base.reloadItems(["A"])
        try base.reconfigureItems(["C"])
        let result = try base.applying(TestChangeset())
        result.checkInvariants()
        #expect(result == base.withoutMarks)
    }

    @Test func changesetAppliedToAnotherBaseIsRefused() throws {
        let old = try makeSnapshot(["x": "ABC"])
        let new = try makeSnapshot(["x": "CA"])
        let changes = new.difference(from: old)
        #expect(try old.applying(changes) == new)
        #expect(throws: ChangesetError.self) { try new.applying(changes) }
        #expect(throws: ChangesetError.self) { try makeSnapshot(["x": "ACB"]).applying(changes) }
    }
}
