import Diffable
import Foundation
import SeededRandom

/// An item of the diff benchmark: a random UUID and some content.
struct BenchItem: Identifiable, Equatable, Sendable {
    let id: UUID
    var content: UInt64
}

/// The diff benchmark's workload: an old snapshot of `count` UUID-keyed items spread over `sections` sections, and a
/// new one made from it by deleting 10 % of the items, changing the content of 10 % of the survivors, moving 10 % of
/// the survivors to random positions (in any section), and inserting 10 % new items at random positions.
struct DiffWorkload {
    typealias BenchSnapshot = Snapshot<Int, BenchItem>

    let old: BenchSnapshot
    let new: BenchSnapshot
    let deleted: Int
    let inserted: Int
    let changed: Int
    let moved: Int
    /// The fewest moves that can turn `old` into `new`, computed from the workload itself (see ``init(count:sections:seed:)``).
    let minimalMoves: Int

    /// Builds the workload; the same arguments always give the same snapshots.
    ///
    /// The minimal number of moves is computed independently of `Diffable`'s diff: for every section, the surviving
    /// items that were in that same section before keep their relative order only along a longest increasing
    /// subsequence of their old positions; every other survivor must move.
    init(count: Int, sections sectionCount: Int, seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        func makeItem() -> BenchItem {
            var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &uuid) { bytes in
                bytes.storeBytes(of: random.next(), as: UInt64.self)
                bytes.storeBytes(of: random.next(), toByteOffset: 8, as: UInt64.self)
                bytes[6] = (bytes[6] & 0x0F) | 0x40  // version 4
                bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 4122 variant
            }
            return BenchItem(id: UUID(uuid: uuid), content: random.next())
        }

        // The old snapshot: contiguous chunks of items per section.
        let oldItems = (0..<count).map { _ in makeItem() }
        let oldSectionOf = (0..<count).map { $0 * sectionCount / max(count, 1) }
        var oldIndexInSection = [Int](repeating: 0, count: count)
        var sectionItems = [[BenchItem]](repeating: [], count: sectionCount)
        for (index, item) in oldItems.enumerated() {
            oldIndexInSection[index] = sectionItems[oldSectionOf[index]].count
            sectionItems[oldSectionOf[index]].append(item)
        }
        old = try BenchSnapshot(Array(zip(0..<sectionCount, sectionItems)))

        // Choose what happens to each old item.
        var order = Array(0..<count)
        order.shuffle(using: &random)
        deleted = count / 10
        let survivors = order[deleted...]
        let tenthOfSurvivors = survivors.count / 10
        let changedSet = Set(survivors.shuffled(using: &random).prefix(tenthOfSurvivors))
        let movedSet = Set(survivors.shuffled(using: &random).prefix(tenthOfSurvivors))
        changed = changedSet.count
        moved = movedSet.count
        inserted = count / 10

        // Place every element of the new snapshot by (section, sort key); unmoved survivors keep their old key.
        var placed = [[(key: Double, oldIndex: Int, item: BenchItem)]](repeating: [], count: sectionCount)
        for index in survivors.sorted() {
            var item = oldItems[index]
            if changedSet.contains(index) { item.content &+= 1 }
            if movedSet.contains(index) {
                let section = Int.random(in: 0..<sectionCount, using: &random)
                let key = Double.random(in: 0..<Double(max(sectionItems[section].count, 1)), using: &random)
                placed[section].append((key, index, item))
            } else {
                placed[oldSectionOf[index]].append((Double(oldIndexInSection[index]), index, item))
            }
        }
        for _ in 0..<inserted {
            let section = Int.random(in: 0..<sectionCount, using: &random)
            let key = Double.random(in: 0..<Double(max(sectionItems[section].count, 1)), using: &random)
            placed[section].append((key, -1, makeItem()))
        }
        for section in placed.indices { placed[section].sort { $0.key < $1.key } }
        new = try BenchSnapshot(placed.enumerated().map { ($0.offset, $0.element.map(\.item)) })

        var staying = 0
        for (section, elements) in placed.enumerated() {
            let sameSection = elements.filter { $0.oldIndex >= 0 && oldSectionOf[$0.oldIndex] == section }
            staying += Self.longestIncreasingSubsequenceLength(sameSection.map { oldIndexInSection[$0.oldIndex] })
        }
        minimalMoves = survivors.count - staying
    }

    /// The length of a longest strictly increasing subsequence (patience sorting, lengths only).
    static func longestIncreasingSubsequenceLength(_ values: [Int]) -> Int {
        var tails: [Int] = []
        for value in values {
            var low = 0
            var high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if tails[middle] < value { low = middle + 1 } else { high = middle }
            }
            if low == tails.count { tails.append(value) } else { tails[low] = value }
        }
        return tails.count
    }
}
