// Shared by the test files: the item type, compact snapshot construction, a seeded random number generator, the
// enumeration of arrangements for the exhaustive tests, a brute-force minimum number of moves, and a checker of a
// changeset against the documented index semantics.

import SeededRandom
import TestSupport

@testable import Diffable

/// An item of the test snapshots: its identity is `id`, its content is `content`.
struct TestItem: Identifiable, Hashable, Codable, Sendable {
    var id: String
    var content: Int

    init(_ id: String, content: Int = 0) {
        self.id = id
        self.content = content
    }
}

typealias TestSnapshot = Snapshot<String, TestItem>
typealias TestChangeset = Changeset<String, TestItem>

/// Items with these identifiers, all with content 0.
func makeItems(_ ids: String...) -> [TestItem] {
    ids.map { TestItem($0) }
}

/// A compact layout: each section's identifier, and a string whose characters are the identifiers of its items.
typealias Layout = KeyValuePairs<String, String>

/// A snapshot from a compact layout, all items with content 0. `makeSnapshot(["x": "AB", "y": ""])` is
/// `x: [A, B]; y: []`.
func makeSnapshot(_ layout: Layout) throws -> TestSnapshot {
    try TestSnapshot(layout.map { section, items in (section, items.map { TestItem(String($0)) }) })
}

/// The index path `[section, item]`.
func indexPath(_ section: Int, _ item: Int) -> ItemIndexPath {
    ItemIndexPath(section: section, item: item)
}

extension Snapshot {
    /// This snapshot without reload and reconfigure marks: what `applying(_:)` produces.
    var withoutMarks: Snapshot {
        var copy = self
        copy.removeMarks()
        return copy
    }
}

// MARK: - Randomness

// The seeded generator is SeededRandom's `SeededGenerator` (SplitMix64), shared with the benchmarks.

// MARK: - Arrangements

/// Item identifiers laid out in sections: each section's identifier and its items, in order.
typealias Arrangement = [(section: String, items: [String])]

/// Calls `body` with every arrangement of every subset of `items` into every ordered subset of `sections`: each
/// permutation of the subset, cut into contiguous (possibly empty) pieces, one per chosen section. The arrangement
/// with no sections is included once; it is the only way to arrange the empty subset without sections.
func forEveryArrangement(
    of items: [String],
    into sections: [String],
    _ body: (Arrangement) throws -> Void
) rethrows {
    let sectionChoices = orderedSubsets(of: sections)
    for subset in subsets(of: items) {
        for order in permutations(of: subset) {
            for chosen in sectionChoices where !chosen.isEmpty || order.isEmpty {
                for sizes in compositions(of: order.count, into: chosen.count) {
                    var start = 0
                    var arrangement: Arrangement = []
                    for (section, size) in zip(chosen, sizes) {
                        arrangement.append((section, Array(order[start..<start + size])))
                        start += size
                    }
                    try body(arrangement)
                }
            }
        }
    }
}

/// Every subset of `elements`, each in the order of `elements`.
func subsets<T>(of elements: [T]) -> [[T]] {
    (0..<(1 << elements.count)).map { mask in
        elements.indices.filter { mask & (1 << $0) != 0 }.map { elements[$0] }
    }
}

/// Every ordering of every subset of `elements`, the empty one included.
func orderedSubsets<T>(of elements: [T]) -> [[T]] {
    subsets(of: elements).flatMap { permutations(of: $0) }
}

/// Every way to write `total` as an ordered sum of `parts` non-negative numbers. With no parts, only 0 can be written
/// (as the empty sum).
func compositions(of total: Int, into parts: Int) -> [[Int]] {
    guard parts > 0 else { return total == 0 ? [[]] : [] }
    guard parts > 1 else { return [[total]] }
    return (0...total).flatMap { first in
        compositions(of: total - first, into: parts - 1).map { [first] + $0 }
    }
}

// MARK: - Brute-force minimum of moves

/// Where an element that survives a change was, and where it is: the identifier of its container (its section, for
/// an item; one common container, for sections) and its index there.
struct Placement {
    var oldContainer: String
    var oldIndex: Int
    var newContainer: String
    var newIndex: Int
}

/// The fewest moves that rearrange survivors placed so: the number of survivors minus the size of the largest set of
/// them that can stay put, found by trying every subset. A set can stay put if and only if each of its elements is in
/// the same container before and after, and any two of them in one container keep their relative order.
///
/// - Complexity: O(2^k · k) for k survivors that keep their container; meant for k ≤ 16.
func bruteForceMinimumMoves(_ placements: [Placement]) -> Int {
    let candidates = placements.filter { $0.oldContainer == $0.newContainer }
    precondition(candidates.count <= 16, "brute force is for small cases")
    // conflicts[i]: the candidates that cannot stay put together with candidate i.
    let conflicts = candidates.map { a in
        candidates.indices.reduce(0) { mask, j in
            let b = candidates[j]
            let swapped = a.oldContainer == b.oldContainer && (a.oldIndex < b.oldIndex) != (a.newIndex < b.newIndex)
            return swapped ? mask | 1 << j : mask
        }
    }
    var largestStaying = 0
    for set in 0..<(1 << candidates.count) where set.nonzeroBitCount > largestStaying {
        if candidates.indices.allSatisfy({ set & (1 << $0) == 0 || conflicts[$0] & set == 0 }) {
            largestStaying = set.nonzeroBitCount
        }
    }
    return placements.count - largestStaying
}

/// The placements of the items present in both snapshots.
func itemPlacements(from old: TestSnapshot, to new: TestSnapshot) -> [Placement] {
    new.sections.flatMap { section, items in
        items.enumerated().compactMap { newIndex, item in
            guard let oldPath = old.indexPath(ofItem: item.id) else { return nil }
            return Placement(
                oldContainer: old.sectionIdentifiers[oldPath.section],
                oldIndex: oldPath.item,
                newContainer: section,
                newIndex: newIndex
            )
        }
    }
}

/// The placements of the sections present in both snapshots.
func sectionPlacements(from old: TestSnapshot, to new: TestSnapshot) -> [Placement] {
    new.sectionIdentifiers.enumerated().compactMap { newIndex, id in
        old.index(ofSection: id).map { Placement(oldContainer: "", oldIndex: $0, newContainer: "", newIndex: newIndex) }
    }
}

// MARK: - Checking a changeset

/// The ways in which `changes` fails to describe the change from `old` to `new`, as documented on `Changeset`. The
/// deletions, insertions, reloads and updates are fully determined, so each list must equal the one expected here,
/// element for element (identifiers, positions, payloads, order); the updates are the surviving items whose content
/// differs or that `new` marks. The moves are not determined (among equally long subsequences, any may stay), so each
/// must name the right old and new positions, the moves must be in order, and include every item that changes section.
/// Finally, replaying the changeset on `old` must give `new` without its marks. Empty when all is well. The number of
/// moves is not checked here.
func problems(of changes: TestChangeset, from old: TestSnapshot, to new: TestSnapshot) -> [String] {
    var problems: [String] = []
    func require(_ condition: Bool, _ problem: @autoclosure () -> String) {
        if !condition { problems.append(problem()) }
    }
    func isIncreasing<T: Comparable>(_ values: [T]) -> Bool {
        zip(values, values.dropFirst()).allSatisfy { $0 < $1 }
    }

    var sectionDeletes: [TestChangeset.SectionDelete] = []
    for (index, id) in old.sectionIdentifiers.enumerated() where !new.contains(section: id) {
        sectionDeletes.append(.init(id: id, from: index))
    }
    var sectionInserts: [TestChangeset.SectionInsert] = []
    var sectionReloads: [TestChangeset.SectionReload] = []
    for (index, id) in new.sectionIdentifiers.enumerated() {
        if !old.contains(section: id) {
            sectionInserts.append(.init(id: id, at: index))
        } else if new.reloadedSectionIdentifiers.contains(id) {
            sectionReloads.append(.init(id: id, at: index))
        }
    }
    require(changes.sectionDeletes == sectionDeletes, "section deletes: expected \(sectionDeletes)")
    require(changes.sectionInserts == sectionInserts, "section inserts: expected \(sectionInserts)")
    require(changes.sectionReloads == sectionReloads, "section reloads: expected \(sectionReloads)")
    require(
        changes.sectionMoves.allSatisfy {
            old.index(ofSection: $0.id) == $0.from && new.index(ofSection: $0.id) == $0.to
        },
        "section move positions"
    )
    require(isIncreasing(changes.sectionMoves.map(\.to)), "section moves in order")

    var itemDeletes: [TestChangeset.ItemDelete] = []
    for (section, items) in old.sections.map(\.items).enumerated() {
        for (index, item) in items.enumerated() where !new.contains(item: item.id) {
            itemDeletes.append(.init(id: item.id, from: indexPath(section, index)))
        }
    }
    var itemInserts: [TestChangeset.ItemPayload] = []
    var itemUpdates: [TestChangeset.ItemPayload] = []
    var sectionChangers = 0
    for (section, (sectionID, items)) in new.sections.enumerated() {
        for (index, item) in items.enumerated() {
            let payload = TestChangeset.ItemPayload(item: item, at: indexPath(section, index))
            guard let oldItem = old.item(withIdentifier: item.id) else {
                itemInserts.append(payload)
                continue
            }
            if oldItem != item || new.reloadedItemIdentifiers.contains(item.id)
                || new.reconfiguredItemIdentifiers.contains(item.id)
            {
                itemUpdates.append(payload)
            }
            if old.sectionIdentifier(containingItem: item.id) != sectionID { sectionChangers += 1 }
        }
    }
    require(changes.itemDeletes == itemDeletes, "item deletes: expected \(itemDeletes)")
    require(changes.itemInserts == itemInserts, "item inserts: expected \(itemInserts)")
    require(changes.itemUpdates == itemUpdates, "item updates: expected \(itemUpdates)")
    require(
        changes.itemMoves.allSatisfy {
            old.indexPath(ofItem: $0.id) == $0.from && new.indexPath(ofItem: $0.id) == $0.to
        },
        "item move positions"
    )
    require(isIncreasing(changes.itemMoves.map(\.to)), "item moves in order")
    let movesAcrossSections = changes.itemMoves.count(where: {
        old.sectionIdentifier(containingItem: $0.id) != new.sectionIdentifier(containingItem: $0.id)
    })
    require(movesAcrossSections == sectionChangers, "every item that changes section is moved")

    do {
        let replayed = try old.applying(changes)
        replayed.checkInvariants()
        require(replayed == new.withoutMarks, "replay gives \(replayed), not \(new)")
    } catch {
        problems.append("replay throws \(error)")
    }
    return problems
}
