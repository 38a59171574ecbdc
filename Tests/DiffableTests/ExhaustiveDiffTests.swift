// Every arrangement of small snapshots against representative old ones: each changeset must follow the documented
// index semantics, replay to its target, report updates exactly for the items whose content changed, and make the
// fewest moves — compared with a brute-force minimum.
//
// Six items over three sections in every arrangement would be 2.9 million pairs per old snapshot (with a brand-new
// seventh item), too many for a debug build; two families keep the run short while covering what matters:
// - four old items A–D plus a brand-new E, in every arrangement over every ordered subset of sections 0, 1, 2
//   (41,101 new snapshots for each old one);
// - six old items A–F plus a brand-new G, in every order of every subset, all in section 0 (13,701 new snapshots for
//   each old one), which stretches the subsequences inside one section.

import Testing

@testable import Diffable

/// An old snapshot, and the items and sections every new snapshot is arranged from.
struct ExhaustiveCase: Sendable, CustomTestStringConvertible {
    var old: Layout
    var newItems: [String]
    var newSections: [String]
    /// How many new snapshots there are.
    var arrangementCount: Int

    var testDescription: String {
        old.map { "\($0.key): \($0.value.isEmpty ? "-" : $0.value)" }.joined(separator: "; ")
    }

    static let fourItemsOverThreeSections = cases(
        olds: [
            ["0": "ABCD"], ["0": "AB", "1": "CD"], ["0": "A", "1": "", "2": "BCD"], ["2": "DC", "0": "", "1": "BA"],
        ],
        newItems: "ABCDE",
        newSections: "012",
        arrangementCount: 41_101
    )

    static let sixItemsInOneSection = cases(
        olds: [["0": "ABCDEF"], ["0": "ABC", "1": "DEF"], ["1": "FE", "2": "", "0": "DCBA"]],
        newItems: "ABCDEFG",
        newSections: "0",
        arrangementCount: 13_701
    )

    /// Cases for several old snapshots, with the same item and section identifiers (one character each) for the new.
    private static func cases(
        olds: [Layout],
        newItems: String,
        newSections: String,
        arrangementCount: Int
    ) -> [ExhaustiveCase] {
        olds.map {
            ExhaustiveCase(
                old: $0,
                newItems: newItems.map(String.init),
                newSections: newSections.map(String.init),
                arrangementCount: arrangementCount
            )
        }
    }
}

@Suite struct ExhaustiveDiffTests {
    @Test(arguments: ExhaustiveCase.fourItemsOverThreeSections + ExhaustiveCase.sixItemsInOneSection)
    func everyArrangementGivesAMinimalFaithfulChangeset(_ exhaustive: ExhaustiveCase) throws {
        let old = try makeSnapshot(exhaustive.old)
        var arrangementNumber = 0
        var failures: [String] = []
        try forEveryArrangement(of: exhaustive.newItems, into: exhaustive.newSections) { arrangement in
            arrangementNumber += 1
            let new = try makeSnapshot(arrangement, changingContentFrom: arrangementNumber)
            let changes = new.difference(from: old)
            var found = problems(of: changes, from: old, to: new)
            let minimumItemMoves = bruteForceMinimumMoves(itemPlacements(from: old, to: new))
            if changes.itemMoves.count != minimumItemMoves {
                found.append("\(changes.itemMoves.count) item moves, not \(minimumItemMoves)")
            }
            let minimumSectionMoves = bruteForceMinimumMoves(sectionPlacements(from: old, to: new))
            if changes.sectionMoves.count != minimumSectionMoves {
                found.append("\(changes.sectionMoves.count) section moves, not \(minimumSectionMoves)")
            }
            if !found.isEmpty && failures.count < 10 {
                failures.append("\(old) → \(new): \(found)\n\(changes.debugDescription)")
            }
        }
        #expect(failures == [])
        #expect(arrangementNumber == exhaustive.arrangementCount)
    }

    // MARK: The test's own tools

    @Test func arrangementsAreAllDistinctAndCountedByTheFormula() {
        var seen: Set<String> = []
        var count = 0
        forEveryArrangement(of: ["A", "B"], into: ["0", "1"]) { arrangement in
            count += 1
            seen.insert(arrangement.map { "\($0.section):\($0.items.joined())" }.joined(separator: " "))
        }
        // No item: no section, or one or two empty ones: 5. One item: 2 × (2 + 2 × 2) = 12. Two items, in 2 orders:
        // 2 × (2 + 2 × 3) = 16.
        #expect(count == 33)
        #expect(seen.count == 33)
        #expect(seen.contains("1:B 0:A"))
        #expect(seen.contains("0: 1:BA"))
        #expect(seen.contains(""))
    }

    @Test func bruteForceMinimumOnKnownCases() throws {
        func minimumItemMoves(_ old: Layout, _ new: Layout) throws -> Int {
            bruteForceMinimumMoves(itemPlacements(from: try makeSnapshot(old), to: try makeSnapshot(new)))
        }
        #expect(try minimumItemMoves(["0": "ABCDEF"], ["0": "ABCDEF"]) == 0)
        #expect(try minimumItemMoves(["0": "ABCDEF"], ["0": "BCDEFA"]) == 1)
        #expect(try minimumItemMoves(["0": "ABCDEF"], ["0": "FEDCBA"]) == 5)
        #expect(try minimumItemMoves(["0": "ABCDEF"], ["0": "BADCFE"]) == 3)
        #expect(try minimumItemMoves(["0": "ABC", "1": "DEF"], ["1": "ABC", "0": "DEF"]) == 6)
        #expect(try minimumItemMoves(["0": "ABC", "1": "DEF"], ["0": "CAF", "1": "DB"]) == 3)
        let sections = sectionPlacements(
            from: try makeSnapshot(["0": "", "1": "", "2": ""]),
            to: try makeSnapshot(["2": "", "0": "", "1": ""])
        )
        #expect(bruteForceMinimumMoves(sections) == 1)
    }
}

/// A snapshot of an arrangement, in which every third item (counting from `offset`, so that the changed items shift
/// from one arrangement to the next) has content 1 instead of 0.
private func makeSnapshot(_ arrangement: Arrangement, changingContentFrom offset: Int) throws -> TestSnapshot {
    var flatIndex = offset
    var sections: [(String, [TestItem])] = []
    for (section, ids) in arrangement {
        var items: [TestItem] = []
        for id in ids {
            flatIndex += 1
            items.append(TestItem(id, content: flatIndex.isMultiple(of: 3) ? 1 : 0))
        }
        sections.append((section, items))
    }
    return try TestSnapshot(sections)
}
