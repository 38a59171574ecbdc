// A complexity guard: count the hashing and `==` calls that `difference(from:)` and `applying(_:)` make on item
// identifiers and items, and require them to stay within a constant per item at every size, and to grow linearly from
// 1,000 to 64,000 items. Counting, not timing, so the guard holds in debug builds and on a busy machine.

import SeededRandom
import Synchronization
import Testing

@testable import Diffable

/// The calls counted since the last `reset()`. Only `ComplexityGuardTests`, which runs its tests one at a time, uses
/// the counted types.
enum OperationCounts {
    static let hashes = Atomic<Int>(0)
    static let identifierComparisons = Atomic<Int>(0)
    static let contentComparisons = Atomic<Int>(0)

    static func reset() {
        hashes.store(0, ordering: .relaxed)
        identifierComparisons.store(0, ordering: .relaxed)
        contentComparisons.store(0, ordering: .relaxed)
    }

    /// The counts: `hash(into:)` and `==` of identifiers, and `==` of items.
    static func read() -> (hashes: Int, identifierComparisons: Int, contentComparisons: Int) {
        (
            hashes.load(ordering: .relaxed),
            identifierComparisons.load(ordering: .relaxed),
            contentComparisons.load(ordering: .relaxed)
        )
    }
}

/// An item identifier that counts its hashing and comparisons.
struct CountedID: Hashable, Sendable {
    var value: Int

    static func == (lhs: CountedID, rhs: CountedID) -> Bool {
        OperationCounts.identifierComparisons.add(1, ordering: .relaxed)
        return lhs.value == rhs.value
    }

    func hash(into hasher: inout Hasher) {
        OperationCounts.hashes.add(1, ordering: .relaxed)
        hasher.combine(value)
    }
}

/// An item that counts the comparisons of its content (without counting identifier comparisons).
struct CountedItem: Identifiable, Equatable, Sendable {
    var id: CountedID
    var content: Int

    static func == (lhs: CountedItem, rhs: CountedItem) -> Bool {
        OperationCounts.contentComparisons.add(1, ordering: .relaxed)
        return lhs.id.value == rhs.id.value && lhs.content == rhs.content
    }
}

typealias CountedSnapshot = Snapshot<Int, CountedItem>

/// An old snapshot of `size` items in sections of 250, and a new one with about 10% of the items deleted, 10%
/// inserted, 10% moved (half inside their section, half to another) and 10% updated, and one section moved.
private func makeCountedPair(size: Int) throws -> (old: CountedSnapshot, new: CountedSnapshot) {
    var random = SeededGenerator(seed: UInt64(size))
    let sectionCount = size / 250
    let oldSections = (0..<sectionCount).map { section in
        (section * 250..<(section + 1) * 250).map { CountedItem(id: CountedID(value: $0), content: 0) }
    }
    var sections = oldSections
    let tenth = size / 10
    for _ in 0..<tenth {
        let section = Int.random(in: 0..<sectionCount, using: &random)
        guard !sections[section].isEmpty else { continue }
        sections[section].remove(at: Int.random(in: sections[section].indices, using: &random))
    }
    for _ in 0..<tenth {
        let section = Int.random(in: 0..<sectionCount, using: &random)
        let item = Int.random(in: sections[section].indices, using: &random)
        sections[section][item].content = 1
    }
    for move in 0..<tenth {
        let from = Int.random(in: 0..<sectionCount, using: &random)
        guard !sections[from].isEmpty else { continue }
        let item = sections[from].remove(at: Int.random(in: sections[from].indices, using: &random))
        let to = move.isMultiple(of: 2) ? from : Int.random(in: 0..<sectionCount, using: &random)
        sections[to].insert(item, at: Int.random(in: 0...sections[to].count, using: &random))
    }
    for number in 0..<tenth {
        let section = Int.random(in: 0..<sectionCount, using: &random)
        let item = CountedItem(id: CountedID(value: size + number), content: 0)
        sections[section].insert(item, at: Int.random(in: 0...sections[section].count, using: &random))
    }
    var sectionIDs = Array(0..<sectionCount)
    sectionIDs.insert(sectionIDs.remove(at: sectionCount / 2), at: 0)
    sections.insert(sections.remove(at: sectionCount / 2), at: 0)
    return (try CountedSnapshot(zip(0..., oldSections)), try CountedSnapshot(zip(sectionIDs, sections)))
}

@Suite(.serialized) struct ComplexityGuardTests {
    static let sizes = [1_000, 4_000, 16_000, 64_000]

    @Test func differenceHashesAndComparesAConstantNumberOfTimesPerItem() throws {
        var totals: [Int] = []
        for size in Self.sizes {
            let (old, new) = try makeCountedPair(size: size)
            let survivorCount = new.itemIdentifiers.filter(old.contains(item:)).count
            OperationCounts.reset()
            let changes = new.difference(from: old)
            let counts = OperationCounts.read()
            // As documented: each item of the new snapshot is looked up at most once in the old one's index, and the
            // content of each surviving item is compared at most once — never when it is bit for bit the old one,
            // always when its content changed.
            #expect(counts.hashes <= new.numberOfItems, "\(counts) at \(size)")
            #expect(counts.identifierComparisons <= 4 * size, "\(counts) at \(size)")
            #expect(counts.contentComparisons <= survivorCount, "\(counts) at \(size)")
            #expect(counts.contentComparisons >= changes.itemUpdates.count, "\(counts) at \(size)")
            #expect(try old.applying(changes) == new)
            totals.append(counts.hashes + counts.identifierComparisons + counts.contentComparisons)
        }
        #expect(totals.last! <= totals.first! * 64 * 12 / 10, "\(totals)")
    }

    @Test func applyingHashesAndComparesAConstantNumberOfTimesPerItem() throws {
        var totals: [Int] = []
        for size in Self.sizes {
            let (old, new) = try makeCountedPair(size: size)
            let changes = new.difference(from: old)
            OperationCounts.reset()
            let result = try old.applying(changes)
            let counts = OperationCounts.read()
            // Indexing the result hashes each item once; allow a little more.
            #expect(counts.hashes <= 2 * size, "\(counts) at \(size)")
            #expect(counts.identifierComparisons <= 4 * size, "\(counts) at \(size)")
            #expect(counts.contentComparisons == 0, "\(counts) at \(size)")
            #expect(result == new)
            totals.append(counts.hashes + counts.identifierComparisons)
        }
        #expect(totals.last! <= totals.first! * 64 * 12 / 10, "\(totals)")
    }
}
