// The descriptions that show up in logs and test failures: readable, and naming what matters.

import Testing

@testable import Diffable

@Suite struct DescriptionTests {
    @Test func snapshotDescriptionListsSectionsAndItemIdentifiers() throws {
        #expect(try makeSnapshot(["x": "AB", "y": ""]).description == "Snapshot(x: [A, B]; y: [])")
        #expect(TestSnapshot().description == "Snapshot()")
    }

    @Test func changesetDescriptionCountsEachKindOfChange() throws {
        let old = try makeSnapshot(["x": "AB", "y": "C", "z": "D"])
        var new = try makeSnapshot(["z": "DB", "n": "E", "x": ""])
        try new.updateItems([TestItem("D", content: 1)])
        try new.reloadSections(["x"])
        let changes = new.difference(from: old)
        #expect(changes.description == "Changeset(sections: +1 -1 ↕1 ⟳1; items: +1 -2 ↕1 ~1)")
        #expect(TestChangeset().description == "Changeset(empty)")
    }

    @Test func changesetDebugDescriptionListsEveryChange() throws {
        var new = try makeSnapshot(["x": "BCDEA", "n": "F"])
        try new.updateItems([TestItem("C", content: 1)])
        let debugDescription = new.difference(from: try makeSnapshot(["x": "ABCDE"])).debugDescription
        #expect(debugDescription.hasPrefix("Changeset(sections: +1; items: +1 ↕1 ~1)\n"))
        #expect(debugDescription.contains("  ↕ item A from [0, 0] to [0, 4]"))
        #expect(debugDescription.contains("  + item F at [1, 0]"))
        #expect(debugDescription.contains("  ~ item C at [0, 1]"))
        #expect(debugDescription.contains("  + section n at 1"))
    }

    @Test func errorDescriptionsNameTheCodeAndTheIdentifier() {
        #expect(TestSnapshot.Error(.duplicateItem, item: "B").description == "duplicate item: item B")
        #expect(TestSnapshot.Error(.unknownSection, section: "q").description == "unknown section: section q")
        #expect(TestSnapshot.Error(.selfRelativeMove, item: "A").description == "move relative to itself: item A")
        #expect(TestSnapshot.Error(.noSection).description == "no section")
        let changesetError = ChangesetError(.identifierMismatch, "item A from [0, 0] holds B")
        #expect(changesetError.description == "identifier mismatch: item A from [0, 0] holds B")
        #expect(indexPath(1, 2).description == "[1, 2]")
    }

    @Test func refusedChangesetSaysWhatDidNotFit() throws {
        var changes = TestChangeset()
        changes.itemDeletes = [.init(id: "B", from: indexPath(0, 0))]
        let error = #expect(throws: ChangesetError.self) { try makeSnapshot(["x": "AB"]).applying(changes) }
        #expect(error?.description.contains("item B") == true)
        #expect(error?.description.contains("holds A") == true)
    }
}
