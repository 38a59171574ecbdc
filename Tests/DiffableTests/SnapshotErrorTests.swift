// Every edit that must be refused: the exact error, and a snapshot left exactly as it was (marks included), also when
// only a later element of a batch is bad.

import Testing

@testable import Diffable

/// An edit of `x: [A, B]; y: [C]; z: []` (with marks) that must be refused, and the error it must throw.
struct RefusedEdit: Sendable, CustomTestStringConvertible {
    var testDescription: String
    var error: TestSnapshot.Error
    var edit: @Sendable (inout TestSnapshot) throws -> Void

    init(_ name: String, _ error: TestSnapshot.Error, _ edit: @escaping @Sendable (inout TestSnapshot) throws -> Void) {
        self.testDescription = name
        self.error = error
        self.edit = edit
    }

    /// The snapshot every edit is tried on.
    static func makeBase() throws -> TestSnapshot {
        var snapshot = try makeSnapshot(["x": "AB", "y": "C", "z": ""])
        try snapshot.reloadSections(["x"])
        try snapshot.reloadItems(["B"])
        try snapshot.reconfigureItems(["C"])
        return snapshot
    }

    static let sectionEdits: [RefusedEdit] = [
        .init("append a present section", .init(.duplicateSection, section: "y")) {
            try $0.appendSections(["y"])
        },
        .init("append a present section after a new one", .init(.duplicateSection, section: "x")) {
            try $0.appendSections(["n", "x"])
        },
        .init("append a section twice", .init(.duplicateSection, section: "n")) {
            try $0.appendSections(["n", "m", "n"])
        },
        .init("insert before an unknown section", .init(.unknownSection, section: "q")) {
            try $0.insertSections(["n"], beforeSection: "q")
        },
        .init("insert a present section before", .init(.duplicateSection, section: "z")) {
            try $0.insertSections(["n", "z"], beforeSection: "x")
        },
        .init("insert a section twice before", .init(.duplicateSection, section: "n")) {
            try $0.insertSections(["n", "n"], beforeSection: "y")
        },
        .init("insert after an unknown section", .init(.unknownSection, section: "q")) {
            try $0.insertSections(["n"], afterSection: "q")
        },
        .init("insert a present section after", .init(.duplicateSection, section: "x")) {
            try $0.insertSections(["x"], afterSection: "z")
        },
        .init("insert a section twice after", .init(.duplicateSection, section: "n")) {
            try $0.insertSections(["n", "n"], afterSection: "x")
        },
        .init("delete an unknown section after a known one", .init(.unknownSection, section: "q")) {
            try $0.deleteSections(["x", "q"])
        },
        .init("move an unknown section before", .init(.unknownSection, section: "q")) {
            try $0.moveSection("q", beforeSection: "x")
        },
        .init("move a section before an unknown one", .init(.unknownSection, section: "q")) {
            try $0.moveSection("x", beforeSection: "q")
        },
        .init("move a section before itself", .init(.selfRelativeMove, section: "y")) {
            try $0.moveSection("y", beforeSection: "y")
        },
        .init("move an unknown section after", .init(.unknownSection, section: "q")) {
            try $0.moveSection("q", afterSection: "x")
        },
        .init("move a section after an unknown one", .init(.unknownSection, section: "q")) {
            try $0.moveSection("z", afterSection: "q")
        },
        .init("move a section after itself", .init(.selfRelativeMove, section: "x")) {
            try $0.moveSection("x", afterSection: "x")
        },
        .init("reload an unknown section after a known one", .init(.unknownSection, section: "q")) {
            try $0.reloadSections(["z", "q"])
        },
    ]

    static let itemEdits: [RefusedEdit] = [
        .init("append to an unknown section", .init(.unknownSection, section: "q")) {
            try $0.appendItems(makeItems("N"), toSection: "q")
        },
        .init("append a present item to the last section", .init(.duplicateItem, item: "A")) {
            try $0.appendItems(makeItems("N", "A"))
        },
        .init("append an item twice", .init(.duplicateItem, item: "N")) {
            try $0.appendItems(makeItems("N", "M", "N"), toSection: "x")
        },
        .init("insert before an unknown item", .init(.unknownItem, item: "Q")) {
            try $0.insertItems(makeItems("N"), beforeItem: "Q")
        },
        .init("insert a present item before", .init(.duplicateItem, item: "C")) {
            try $0.insertItems(makeItems("N", "C"), beforeItem: "A")
        },
        .init("insert an item twice before", .init(.duplicateItem, item: "N")) {
            try $0.insertItems(makeItems("N", "N"), beforeItem: "C")
        },
        .init("insert after an unknown item", .init(.unknownItem, item: "Q")) {
            try $0.insertItems(makeItems("N"), afterItem: "Q")
        },
        .init("insert a present item after", .init(.duplicateItem, item: "B")) {
            try $0.insertItems(makeItems("B"), afterItem: "C")
        },
        .init("insert an item twice after", .init(.duplicateItem, item: "N")) {
            try $0.insertItems(makeItems("N", "M", "N"), afterItem: "B")
        },
        .init("delete an unknown item after known ones", .init(.unknownItem, item: "Q")) {
            try $0.deleteItems(["A", "C", "Q"])
        },
        .init("move an unknown item before", .init(.unknownItem, item: "Q")) {
            try $0.moveItem("Q", beforeItem: "A")
        },
        .init("move an item before an unknown one", .init(.unknownItem, item: "Q")) {
            try $0.moveItem("A", beforeItem: "Q")
        },
        .init("move an item before itself", .init(.selfRelativeMove, item: "B")) {
            try $0.moveItem("B", beforeItem: "B")
        },
        .init("move an unknown item after", .init(.unknownItem, item: "Q")) {
            try $0.moveItem("Q", afterItem: "C")
        },
        .init("move an item after an unknown one", .init(.unknownItem, item: "Q")) {
            try $0.moveItem("C", afterItem: "Q")
        },
        .init("move an item after itself", .init(.selfRelativeMove, item: "A")) {
            try $0.moveItem("A", afterItem: "A")
        },
        .init("update an unknown item after a known one", .init(.unknownItem, item: "Q")) {
            try $0.updateItems([TestItem("A", content: 9), TestItem("Q", content: 9)])
        },
        .init("reload an unknown item after a known one", .init(.unknownItem, item: "Q")) {
            try $0.reloadItems(["A", "Q"])
        },
        .init("reconfigure an unknown item after a known one", .init(.unknownItem, item: "Q")) {
            try $0.reconfigureItems(["A", "Q"])
        },
    ]
}

@Suite struct SnapshotErrorTests {
    @Test(arguments: RefusedEdit.sectionEdits + RefusedEdit.itemEdits)
    func refusedEditThrowsAndLeavesTheSnapshotUnchanged(_ refused: RefusedEdit) throws {
        let original = try RefusedEdit.makeBase()
        var snapshot = original
        #expect(throws: refused.error) { try refused.edit(&snapshot) }
        snapshot.checkInvariants()
        #expect(snapshot == original)
        #expect(snapshot.reloadedSectionIdentifiers == ["x"])
        #expect(snapshot.reloadedItemIdentifiers == ["B"])
        #expect(snapshot.reconfiguredItemIdentifiers == ["C"])
    }

    @Test func appendingItemsToASnapshotWithoutSectionsThrowsNoSection() {
        var snapshot = TestSnapshot()
        #expect(throws: TestSnapshot.Error(.noSection)) { try snapshot.appendItems(makeItems("A")) }
        snapshot.checkInvariants()
        #expect(snapshot == TestSnapshot())
    }

    @Test func initializerRefusesDuplicateIdentifiers() {
        #expect(throws: TestSnapshot.Error(.duplicateSection, section: "x")) {
            try TestSnapshot([("x", makeItems("A")), ("y", []), ("x", [])])
        }
        #expect(throws: TestSnapshot.Error(.duplicateItem, item: "A")) {
            try TestSnapshot([("x", makeItems("A")), ("y", makeItems("B", "A"))])
        }
    }

    @Test func errorsNameTheirCodeAndIdentifier() {
        let sectionError = TestSnapshot.Error(.unknownSection, section: "q")
        #expect(sectionError.code == .unknownSection && sectionError.sectionID == "q" && sectionError.itemID == nil)
        let itemError = TestSnapshot.Error(.duplicateItem, item: "A")
        #expect(itemError.code == .duplicateItem && itemError.itemID == "A" && itemError.sectionID == nil)
        #expect(itemError != TestSnapshot.Error(.duplicateItem, item: "B"))
        #expect(itemError != TestSnapshot.Error(.unknownItem, item: "A"))
    }
}
