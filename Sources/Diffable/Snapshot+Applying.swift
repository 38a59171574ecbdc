extension Snapshot {
    /// The snapshot that results from replaying a changeset on this one, following the steps documented on
    /// ``Changeset``.
    ///
    /// Every position and identifier the changeset names is checked against this snapshot, so a changeset that was
    /// computed from another base, corrupted or reordered is reported instead of producing a wrong snapshot.
    ///
    /// - Parameter changes: A changeset whose old positions refer to this snapshot.
    /// - Returns: The new snapshot, without reload or reconfigure marks.
    /// - Throws: ``ChangesetError`` if the changeset does not fit this snapshot.
    /// - Complexity: O(n + c log c), where n is the number of items and c the number of changes.
    public func applying(_ changes: Changeset<SectionID, Item>) throws(ChangesetError) -> Snapshot {
        var sectionIDs = _sectionIDs
        var sectionItems = _sectionItems

        // 1. Remove deleted and moved-away items, by old index path; keep the moved ones.
        var itemRemovals = [[Int]](repeating: [], count: sectionIDs.count)
        func checkOldItem(_ id: ItemID, at path: ItemIndexPath) throws(ChangesetError) {
            guard let item = item(at: path) else {
                throw ChangesetError(.positionOutOfRange, "item \(id) from \(path)")
            }
            guard item.id == id else {
                throw ChangesetError(.identifierMismatch, "item \(id) from \(path) holds \(item.id)")
            }
            itemRemovals[path.section].append(path.item)
        }
        for delete in changes.itemDeletes { try checkOldItem(delete.id, at: delete.from) }
        var movedItems: [Item] = []
        movedItems.reserveCapacity(changes.itemMoves.count)
        for move in changes.itemMoves {
            try checkOldItem(move.id, at: move.from)
            movedItems.append(_sectionItems[move.from.section][move.from.item])
        }
        for (section, removals) in itemRemovals.enumerated() where !removals.isEmpty {
            sectionItems[section] = try Self._removing(removals, from: sectionItems[section]) {
                index throws(ChangesetError) in
                throw ChangesetError(
                    .positionConflict,
                    "item \(ItemIndexPath(section: section, item: index)) removed twice"
                )
            }
        }

        // 2. Remove deleted and moved-away sections, by old index; keep the moved ones with their items.
        var sectionRemovals: [Int] = []
        func checkOldSection(_ id: SectionID, at index: Int) throws(ChangesetError) {
            guard sectionIDs.indices.contains(index) else {
                throw ChangesetError(.positionOutOfRange, "section \(id) from \(index)")
            }
            guard sectionIDs[index] == id else {
                throw ChangesetError(.identifierMismatch, "section \(id) from \(index) holds \(sectionIDs[index])")
            }
            sectionRemovals.append(index)
        }
        for delete in changes.sectionDeletes {
            try checkOldSection(delete.id, at: delete.from)
            guard sectionItems[delete.from].isEmpty else {
                throw ChangesetError(.sectionNotEmpty, "section \(delete.id) deleted with items left in it")
            }
        }
        var movedSections: [(SectionID, [Item])] = []
        for move in changes.sectionMoves {
            try checkOldSection(move.id, at: move.from)
            movedSections.append((move.id, sectionItems[move.from]))
        }
        if !sectionRemovals.isEmpty {
            func conflict(_ index: Int) throws(ChangesetError) -> Never {
                throw ChangesetError(.positionConflict, "section \(index) removed twice")
            }
            sectionIDs = try Self._removing(sectionRemovals, from: sectionIDs, conflict)
            sectionItems = try Self._removing(sectionRemovals, from: sectionItems, conflict)
        }

        // 3. Insert new (empty) and moved sections, by new index.
        var sectionInsertions = changes.sectionInserts.map { (at: $0.at, element: ($0.id, [Item]())) }
        sectionInsertions += zip(changes.sectionMoves, movedSections).map { (at: $0.to, element: $1) }
        if !sectionInsertions.isEmpty {
            let merged = try Self._inserting(
                sectionInsertions,
                into: Array(zip(sectionIDs, sectionItems)),
                conflict: { index throws(ChangesetError) in
                    throw ChangesetError(.positionConflict, "two sections inserted at \(index)")
                },
                gap: { index throws(ChangesetError) in
                    throw ChangesetError(.positionOutOfRange, "section inserted at \(index) leaves a gap")
                }
            )
            sectionIDs = merged.map(\.0)
            sectionItems = merged.map(\.1)
        }
        for reload in changes.sectionReloads {
            guard sectionIDs.indices.contains(reload.at) else {
                throw ChangesetError(.positionOutOfRange, "section \(reload.id) reloaded at \(reload.at)")
            }
            guard sectionIDs[reload.at] == reload.id else {
                throw ChangesetError(
                    .identifierMismatch,
                    "section \(reload.id) reloaded at \(reload.at) holds \(sectionIDs[reload.at])"
                )
            }
        }

        // 4. Insert new and moved items, by new index path.
        var itemInsertions = [[(at: Int, element: Item)]](repeating: [], count: sectionIDs.count)
        func insert(_ item: Item, at path: ItemIndexPath) throws(ChangesetError) {
            guard itemInsertions.indices.contains(path.section) else {
                throw ChangesetError(.positionOutOfRange, "item \(item.id) to \(path)")
            }
            itemInsertions[path.section].append((at: path.item, element: item))
        }
        for insertion in changes.itemInserts { try insert(insertion.item, at: insertion.at) }
        for (move, item) in zip(changes.itemMoves, movedItems) { try insert(item, at: move.to) }
        for (section, insertions) in itemInsertions.enumerated() where !insertions.isEmpty {
            sectionItems[section] = try Self._inserting(
                insertions,
                into: sectionItems[section],
                conflict: { index throws(ChangesetError) in
                    throw ChangesetError(
                        .positionConflict,
                        "two items inserted at \(ItemIndexPath(section: section, item: index))"
                    )
                },
                gap: { index throws(ChangesetError) in
                    throw ChangesetError(
                        .positionOutOfRange,
                        "item inserted at \(ItemIndexPath(section: section, item: index)) leaves a gap"
                    )
                }
            )
        }

        // 5. Replace updated items.
        for update in changes.itemUpdates {
            let path = update.at
            guard sectionItems.indices.contains(path.section), sectionItems[path.section].indices.contains(path.item)
            else { throw ChangesetError(.positionOutOfRange, "item \(update.item.id) updated at \(path)") }
            let current = sectionItems[path.section][path.item].id
            guard current == update.item.id else {
                throw ChangesetError(.identifierMismatch, "item \(update.item.id) updated at \(path) holds \(current)")
            }
            sectionItems[path.section][path.item] = update.item
        }

        do {
            return try Snapshot(sectionIDs: sectionIDs, sectionItems: sectionItems)
        } catch {
            throw ChangesetError(.duplicateIdentifier, "the result would hold \(error)")
        }
    }

    /// A snapshot of these sections and items, indexed in one pass.
    /// - Complexity: O(n)
    init(sectionIDs: [SectionID], sectionItems: [[Item]]) throws(Error) {
        _sectionIDs = sectionIDs
        _sectionItems = sectionItems
        _sectionIndices.reserveCapacity(sectionIDs.count)
        for (index, id) in sectionIDs.enumerated() {
            guard _sectionIndices.updateValue(index, forKey: id) == nil else {
                throw Error(.duplicateSection, section: id)
            }
        }
        _itemPaths.reserveCapacity(sectionItems.reduce(0) { $0 + $1.count })
        _sectionStarts.reserveCapacity(sectionIDs.count + 1)
        for (section, items) in sectionItems.enumerated() {
            for (index, item) in items.enumerated() {
                guard _itemPaths.updateValue(ItemIndexPath(section: section, item: index), forKey: item.id) == nil
                else {
                    throw Error(.duplicateItem, item: item.id)
                }
            }
            _sectionStarts.append(_sectionStarts[section] + items.count)
        }
    }

    /// `elements` without the elements at `indices` (in any order).
    /// - Complexity: O(n + k log k)
    static func _removing<Element>(
        _ indices: [Int],
        from elements: [Element],
        _ conflict: (Int) throws(ChangesetError) -> Never
    ) throws(ChangesetError) -> [Element] {
        let sorted = indices.sorted()
        var result: [Element] = []
        result.reserveCapacity(elements.count - sorted.count)
        var next = 0
        var previous = -1
        for index in sorted {
            if index == previous { try conflict(index) }
            result.append(contentsOf: elements[next..<index])
            next = index + 1
            previous = index
        }
        result.append(contentsOf: elements[next...])
        return result
    }

    /// `elements` with each insertion placed at its final index, filling the other places with `elements` in order.
    /// - Complexity: O(n + k log k)
    static func _inserting<Element>(
        _ insertions: [(at: Int, element: Element)],
        into elements: [Element],
        conflict: (Int) throws(ChangesetError) -> Never,
        gap: (Int) throws(ChangesetError) -> Never
    ) throws(ChangesetError) -> [Element] {
        let sorted = insertions.sorted { $0.at < $1.at }
        var result: [Element] = []
        result.reserveCapacity(elements.count + sorted.count)
        var next = 0
        for insertion in sorted {
            // A final index taken already (by an insertion at the same index) conflicts; a negative one, or one beyond
            // what the kept elements can fill, leaves a gap.
            if insertion.at < result.count { try insertion.at >= 0 ? conflict(insertion.at) : gap(insertion.at) }
            guard insertion.at - result.count <= elements.count - next else { try gap(insertion.at) }
            let fill = insertion.at - result.count
            result.append(contentsOf: elements[next..<next + fill])
            next += fill
            result.append(insertion.element)
        }
        result.append(contentsOf: elements[next...])
        return result
    }
}
