// Seeded property tests on random pairs of snapshots of a few hundred items: the changeset follows the documented
// index semantics and replays to its target (also after a JSON round trip), updates are exact, and moves are minimal
// — against a minimum computed here with a quadratic dynamic program, independently of the library's subsequence.
//
// A property check draws a `RandomPair` — a seed and two sizes — that makes the same two snapshots every time, so the
// input a failure reports (shrunk to small sizes where possible) is all a regression test needs:
// `try RandomPair(seed: …, itemCount: …, sectionCount: …).make()`.

import Foundation
import PropertyBased
import SeededRandom
import Testing

@testable import Diffable

@Suite struct DiffPropertyTests {
    @Test func changesetIsFaithfulAndMinimal() async {
        await propertyCheck(count: 200, input: randomPairs(items: 0...400, sections: 1...8)) { pair in
            let (old, new) = try pair.make()
            expectFaithfulAndMinimal(from: old, to: new)
            // And back, to the old snapshot with its marks.
            expectFaithfulAndMinimal(from: new, to: old)
        }
    }

    @Test func snapshotDiffersFromItselfByNothing() async {
        await propertyCheck(count: 50, input: randomPairs(items: 0...400, sections: 1...8)) { pair in
            let (old, new) = try pair.make()
            for snapshot in [old.withoutMarks, new.withoutMarks] {
                #expect(snapshot.difference(from: snapshot).isEmpty)
            }
        }
    }

    @Test func changesetSurvivesAJSONRoundTrip() async {
        await propertyCheck(count: 50, input: randomPairs(items: 0...400, sections: 1...8)) { pair in
            let (old, new) = try pair.make()
            let changes = new.difference(from: old)
            let decoded = try JSONDecoder().decode(TestChangeset.self, from: JSONEncoder().encode(changes))
            #expect(decoded == changes)
            #expect(try old.applying(decoded) == new.withoutMarks)
        }
    }

    @Test func changesetAppliedToAnotherBaseThrowsOrGivesAValidSnapshot() async {
        await propertyCheck(count: 50, input: randomPairs(items: 0...60, sections: 1...4)) { pair in
            let (old, new) = try pair.make()
            var other = pair
            other.seed &+= 1
            do {
                let result = try other.make().old.applying(new.difference(from: old))
                result.checkInvariants()
            } catch {
                // A changeset that does not fit is reported; that it never traps is the property.
            }
        }
    }
}

/// Expects `new.difference(from: old)` to follow the documented semantics (see `problems(of:from:to:)`) and to make
/// exactly as many moves as the independently computed minimum.
private func expectFaithfulAndMinimal(
    from old: TestSnapshot,
    to new: TestSnapshot,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let changes = new.difference(from: old)
    #expect(problems(of: changes, from: old, to: new) == [], sourceLocation: sourceLocation)
    #expect(changes.itemMoves.count == minimumItemMoves(from: old, to: new), sourceLocation: sourceLocation)
    #expect(changes.sectionMoves.count == minimumSectionMoves(from: old, to: new), sourceLocation: sourceLocation)
}

// MARK: - Independent minimum

/// The length of a longest strictly increasing subsequence of `values`, by the quadratic dynamic program.
private func lengthOfLongestIncreasingSubsequence(_ values: [Int]) -> Int {
    // endingAt[i]: the length of the longest increasing subsequence that ends with values[i].
    var endingAt: [Int] = []
    for (i, value) in values.enumerated() {
        var length = 1
        for j in 0..<i where values[j] < value { length = max(length, endingAt[j] + 1) }
        endingAt.append(length)
    }
    return endingAt.max() ?? 0
}

/// The fewest item moves from `old` to `new`: every survivor that changes section, plus, in each section, the
/// survivors that stay in it and are not on a longest increasing subsequence of their old positions.
private func minimumItemMoves(from old: TestSnapshot, to new: TestSnapshot) -> Int {
    var moves = 0
    for (section, items) in new.sections {
        var oldPositionsOfStayers: [Int] = []
        for item in items {
            guard let oldSection = old.sectionIdentifier(containingItem: item.id) else { continue }
            if oldSection == section {
                oldPositionsOfStayers.append(old.indexPath(ofItem: item.id)!.item)
            } else {
                moves += 1
            }
        }
        moves += oldPositionsOfStayers.count - lengthOfLongestIncreasingSubsequence(oldPositionsOfStayers)
    }
    return moves
}

/// The fewest section moves from `old` to `new`: the surviving sections not on a longest increasing subsequence of
/// their old positions.
private func minimumSectionMoves(from old: TestSnapshot, to new: TestSnapshot) -> Int {
    let oldPositions = new.sectionIdentifiers.compactMap { old.index(ofSection: $0) }
    return oldPositions.count - lengthOfLongestIncreasingSubsequence(oldPositions)
}

// MARK: - Random pairs

/// The random pairs with a number of items and of sections in these ranges.
private func randomPairs(
    items: ClosedRange<Int>,
    sections: ClosedRange<Int>
) -> Generator<RandomPair, some Sequence & SendableMetatype> {
    zip(Gen.uint64(), Gen.int(in: items), Gen.int(in: sections)).map {
        RandomPair(seed: $0.0, itemCount: $0.1, sectionCount: $0.2)
    }
}

/// The recipe of a random old snapshot of `itemCount` items over `sectionCount` sections, with random marks, and of a
/// new one made from it by random edits through the editing API: deletions, insertions and moves of sections and
/// items, content changes (some to the same content), and marks. In one pair in eight, up to every item is moved.
struct RandomPair: Sendable {
    var seed: UInt64
    var itemCount: Int
    var sectionCount: Int

    /// The two snapshots, the same for the same recipe. Invariants are checked after every edit.
    func make() throws -> (old: TestSnapshot, new: TestSnapshot) {
        var random = SeededGenerator(seed: seed)
        func chance(_ probability: Double) -> Bool { Double.random(in: 0..<1, using: &random) < probability }

        let sectionIDs = (0..<sectionCount).map { "s\($0)" }
        var layout = Dictionary(uniqueKeysWithValues: sectionIDs.map { ($0, [TestItem]()) })
        for number in 0..<itemCount {
            layout[sectionIDs.randomElement(using: &random)!]!.append(
                TestItem("i\(number)", content: Int.random(in: 0...2, using: &random))
            )
        }
        var old = try TestSnapshot(sectionIDs.map { ($0, layout[$0]!) })
        try old.reloadItems(old.itemIdentifiers.filter { _ in chance(0.05) })
        try old.reconfigureItems(old.itemIdentifiers.filter { _ in chance(0.05) })
        try old.reloadSections(old.sectionIdentifiers.filter { _ in chance(0.2) })
        old.checkInvariants()

        var new = old.withoutMarks
        let rate = Double.random(in: 0...0.3, using: &random)
        let moveRate = chance(0.125) ? 1 : rate
        func edits(_ rate: Double) -> Int {
            Int((Double(itemCount) * rate * Double.random(in: 0...1, using: &random)).rounded())
        }
        func anyItem() -> String? { new.itemIdentifiers.randomElement(using: &random) }
        func anySection() -> String? { new.sectionIdentifiers.randomElement(using: &random) }

        // Sections: delete one now and then, insert a few, move a few.
        if new.numberOfSections > 1, chance(0.3), let doomed = anySection() {
            try new.deleteSections([doomed])
            new.checkInvariants()
        }
        for number in 0..<Int.random(in: 0...2, using: &random) {
            if let anchor = anySection(), chance(0.7) {
                if chance(0.5) {
                    try new.insertSections(["n\(number)"], beforeSection: anchor)
                } else {
                    try new.insertSections(["n\(number)"], afterSection: anchor)
                }
            } else {
                try new.appendSections(["n\(number)"])
            }
            new.checkInvariants()
        }
        for _ in 0..<Int.random(in: 0...(chance(0.125) ? 8 : 2), using: &random) {
            guard let section = anySection(), let anchor = anySection(), section != anchor else { continue }
            if chance(0.5) {
                try new.moveSection(section, beforeSection: anchor)
            } else {
                try new.moveSection(section, afterSection: anchor)
            }
            new.checkInvariants()
        }

        // Items: delete, insert, move, update.
        for _ in 0..<edits(rate) {
            guard let doomed = anyItem() else { break }
            try new.deleteItems([doomed])
            new.checkInvariants()
        }
        for number in 0..<edits(rate) {
            let item = TestItem("j\(number)", content: Int.random(in: 0...2, using: &random))
            if let anchor = anyItem(), chance(0.8) {
                if chance(0.5) {
                    try new.insertItems([item], beforeItem: anchor)
                } else {
                    try new.insertItems([item], afterItem: anchor)
                }
            } else {
                try new.appendItems([item], toSection: anySection()!)
            }
            new.checkInvariants()
        }
        for _ in 0..<edits(moveRate) {
            guard let item = anyItem(), let anchor = anyItem(), item != anchor else { continue }
            if chance(0.5) {
                try new.moveItem(item, beforeItem: anchor)
            } else {
                try new.moveItem(item, afterItem: anchor)
            }
            new.checkInvariants()
        }
        for _ in 0..<edits(rate) {
            guard let id = anyItem() else { break }
            try new.updateItems([TestItem(id, content: Int.random(in: 0...2, using: &random))])
            new.checkInvariants()
        }

        // Marks.
        try new.reloadItems(new.itemIdentifiers.filter { _ in chance(rate / 4) })
        try new.reconfigureItems(new.itemIdentifiers.filter { _ in chance(rate / 4) })
        try new.reloadSections(new.sectionIdentifiers.filter { _ in chance(0.2) })
        new.checkInvariants()
        return (old, new)
    }
}
