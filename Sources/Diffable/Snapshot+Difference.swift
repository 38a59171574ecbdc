#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Snapshot {
    /// The changes that turn `old` into this snapshot.
    ///
    /// Identity matching is Heckel-style, by hashing: each item of this snapshot is looked up at most once in
    /// `old`'s identifier index (which every snapshot maintains anyway), so no table is built here. Because runs of
    /// items usually keep their order, an item found right after the old position of one of the previous items of
    /// its section is recognised by comparing at most three identifiers, without hashing. Items and sections that
    /// survive but fall out of order are found with a longest increasing subsequence, which makes the reported moves
    /// minimal (see ``Changeset``). Content is compared with `==` at most once per surviving item: not at all when
    /// the two stored values are identical bit for bit (an item the new snapshot copied from the old one), which
    /// also treats such an item as unchanged even if its type's `==` is not reflexive (NaN). Reload and reconfigure
    /// marks of *this* snapshot are reported as updates; the marks of `old` are ignored.
    ///
    /// - Parameter old: The earlier snapshot.
    /// - Returns: A changeset `c` with `old.applying(c)` equal to this snapshot without its marks.
    /// - Complexity: O(n) expected hashing and `==` work, where n is the number of items and sections of both
    ///   snapshots, plus O(n log n) integer comparisons in the worst case for the subsequences (linear when few
    ///   items move). Scratch memory is O(n).
    @inlinable
    public func difference(from old: Snapshot) -> Changeset<SectionID, Item> {
        var changes = Changeset<SectionID, Item>()
        let newToOldSection = _sectionDifference(from: old, into: &changes)

        let hasMarks = !_reloadedItemIDs.isEmpty || !_reconfiguredItemIDs.isEmpty
        let largestSection = _sectionItems.reduce(0) { max($0, $1.count) }
        // For the items of one section that were in that same section before: old and new index.
        let stayingOld = UnsafeMutableBufferPointer<Int>.allocate(capacity: largestSection)
        let stayingNew = UnsafeMutableBufferPointer<Int>.allocate(capacity: largestSection)
        let oldItemSurvives = UnsafeMutableBufferPointer<Bool>.allocate(capacity: old.numberOfItems)
        defer {
            stayingOld.deallocate()
            stayingNew.deallocate()
            oldItemSurvives.deallocate()
        }
        oldItemSurvives.initialize(repeating: false)
        var crossingMoves: [Changeset<SectionID, Item>.ItemMove] = []

        for (newSection, items) in _sectionItems.enumerated() {
            let oldSection = newToOldSection[newSection]
            let oldItemsHere = oldSection >= 0 ? old._sectionItems[oldSection] : []
            let oldStart = oldSection >= 0 ? old._sectionStarts[oldSection] : 0
            var stayingCount = 0
            crossingMoves.removeAll(keepingCapacity: true)
            // Items are read in place (through buffer pointers), never copied: a copy costs a retain and a release
            // per reference in the item.
            items.withUnsafeBufferPointer { newItems in
                oldItemsHere.withUnsafeBufferPointer { oldItemsHere in
                    var last = -3  // old index of the previous item that stayed in this section
                    var earlier = -3  // the one before it
                    for newItem in newItems.indices {
                        let id = newItems[newItem].id
                        let newPath = ItemIndexPath(section: newSection, item: newItem)
                        let oldPath: ItemIndexPath
                        if let index = Self._index(of: id, in: oldItemsHere, nearAfter: last, earlier) {
                            oldPath = ItemIndexPath(section: oldSection, item: index)
                        } else if let found = old._itemPaths[id] {
                            oldPath = found
                        } else {
                            changes.itemInserts.append(.init(item: newItems[newItem], at: newPath))
                            continue
                        }
                        let stays = oldPath.section == oldSection
                        let changed =
                            stays
                            ? !Self._same(oldItemsHere.baseAddress! + oldPath.item, newItems.baseAddress! + newItem)
                            : old._sectionItems[oldPath.section][oldPath.item] != newItems[newItem]
                        if changed || (hasMarks && (_reloadedItemIDs.contains(id) || _reconfiguredItemIDs.contains(id)))
                        {
                            changes.itemUpdates.append(.init(item: newItems[newItem], at: newPath))
                        }
                        if stays {
                            oldItemSurvives[oldStart + oldPath.item] = true
                            stayingOld[stayingCount] = oldPath.item
                            stayingNew[stayingCount] = newItem
                            stayingCount += 1
                            earlier = last
                            last = oldPath.item
                        } else {
                            oldItemSurvives[old._sectionStarts[oldPath.section] + oldPath.item] = true
                            crossingMoves.append(.init(id: id, from: oldPath, to: newPath))
                        }
                    }
                }
            }

            // Moves: the items that changed section, and those off a longest increasing subsequence of the rest.
            // Both lists are in new order; merge them so that the moves stay sorted by new index path.
            let stays = longestIncreasingSubsequenceMask(UnsafeBufferPointer(rebasing: stayingOld[..<stayingCount]))
            var crossing = crossingMoves.makeIterator()
            var nextCrossing = crossing.next()
            for position in 0..<stayingCount where !stays[position] {
                let newItem = stayingNew[position]
                while let move = nextCrossing, move.to.item < newItem {
                    changes.itemMoves.append(move)
                    nextCrossing = crossing.next()
                }
                changes.itemMoves.append(
                    .init(
                        id: items[newItem].id,
                        from: ItemIndexPath(section: oldSection, item: stayingOld[position]),
                        to: ItemIndexPath(section: newSection, item: newItem)
                    )
                )
            }
            while let move = nextCrossing {
                changes.itemMoves.append(move)
                nextCrossing = crossing.next()
            }
        }

        for (oldSection, items) in old._sectionItems.enumerated() {
            let start = old._sectionStarts[oldSection]
            for oldItem in items.indices where !oldItemSurvives[start + oldItem] {
                changes.itemDeletes.append(
                    .init(id: items[oldItem].id, from: ItemIndexPath(section: oldSection, item: oldItem))
                )
            }
        }
        return changes
    }

    /// Fills in the section changes from `old` to this snapshot and returns, for each section of this snapshot, the
    /// index of the same section in `old`, or -1 for a new one.
    /// - Complexity: O(s log s) for s sections, with one hash lookup per section.
    @inlinable
    func _sectionDifference(from old: Snapshot, into changes: inout Changeset<SectionID, Item>) -> [Int] {
        var oldToNewSection = [Int](repeating: -1, count: old._sectionIDs.count)
        var newToOldSection = [Int](repeating: -1, count: _sectionIDs.count)
        var survivingOld: [Int] = []
        var survivingNew: [Int] = []
        for (newIndex, id) in _sectionIDs.enumerated() {
            if let oldIndex = old._sectionIndices[id] {
                oldToNewSection[oldIndex] = newIndex
                newToOldSection[newIndex] = oldIndex
                survivingOld.append(oldIndex)
                survivingNew.append(newIndex)
            } else {
                changes.sectionInserts.append(.init(id: id, at: newIndex))
            }
        }
        for (oldIndex, newIndex) in oldToNewSection.enumerated() where newIndex < 0 {
            changes.sectionDeletes.append(.init(id: old._sectionIDs[oldIndex], from: oldIndex))
        }
        let stays = survivingOld.withUnsafeBufferPointer(longestIncreasingSubsequenceMask)
        for (position, stays) in stays.enumerated() where !stays {
            let oldIndex = survivingOld[position]
            changes.sectionMoves.append(
                .init(id: old._sectionIDs[oldIndex], from: oldIndex, to: survivingNew[position])
            )
        }
        if !_reloadedSectionIDs.isEmpty {
            for (newIndex, id) in _sectionIDs.enumerated()
            where newToOldSection[newIndex] >= 0 && _reloadedSectionIDs.contains(id) {
                changes.sectionReloads.append(.init(id: id, at: newIndex))
            }
        }
        return newToOldSection
    }

    /// Whether two items are equal: bit for bit (the same stored value, e.g. an item a snapshot copied from the
    /// other, which then costs no call of `==` and no copy), or else by `==`.
    @inlinable @inline(__always)
    static func _same(_ old: UnsafePointer<Item>, _ new: UnsafePointer<Item>) -> Bool {
        memcmp(old, new, MemoryLayout<Item>.size) == 0 || old.pointee == new.pointee
    }

    /// The index of the item `id` in `items` if it is one or two places after `last`, or one place after `earlier`;
    /// `nil` otherwise. Compares at most three identifiers and hashes none.
    @inlinable @inline(__always)
    static func _index(
        of id: ItemID,
        in items: UnsafeBufferPointer<Item>,
        nearAfter last: Int,
        _ earlier: Int
    ) -> Int? {
        @inline(__always) func holds(_ candidate: Int) -> Bool {
            candidate >= 0 && candidate < items.count && items[candidate].id == id
        }
        if holds(last + 1) { return last + 1 }
        if holds(last + 2) { return last + 2 }
        if holds(earlier + 1) { return earlier + 1 }
        return nil
    }
}
