// Editing a snapshot. Every edit validates all of its arguments before it changes anything, so a thrown error
// always leaves the snapshot as it was.

// MARK: - Sections

extension Snapshot {
    /// Appends sections after the last section.
    ///
    /// - Parameter sections: The identifiers of the new, empty sections.
    /// - Throws: ``SnapshotError/Code/duplicateSection`` if an identifier is already present or appears twice.
    /// - Complexity: O(k), where k is the number of new sections.
    public mutating func appendSections(_ sections: [SectionID]) throws(Error) {
        try _validateNewSections(sections)
        _insertSections(sections, at: _sectionIDs.count)
    }

    /// Inserts sections before an existing section.
    ///
    /// - Parameters:
    ///   - sections: The identifiers of the new, empty sections.
    ///   - anchor: The section before which they are inserted.
    /// - Throws: ``SnapshotError/Code/unknownSection`` for an unknown anchor, ``SnapshotError/Code/duplicateSection``
    ///   if an identifier is already present or appears twice.
    /// - Complexity: O(k + m), where m is the number of items in the sections that follow.
    public mutating func insertSections(_ sections: [SectionID], beforeSection anchor: SectionID) throws(Error) {
        let index = try _index(ofSection: anchor)
        try _validateNewSections(sections)
        _insertSections(sections, at: index)
    }

    /// Inserts sections after an existing section.
    ///
    /// - Parameters:
    ///   - sections: The identifiers of the new, empty sections.
    ///   - anchor: The section after which they are inserted.
    /// - Throws: ``SnapshotError/Code/unknownSection`` for an unknown anchor, ``SnapshotError/Code/duplicateSection``
    ///   if an identifier is already present or appears twice.
    /// - Complexity: O(k + m), where m is the number of items in the sections that follow.
    public mutating func insertSections(_ sections: [SectionID], afterSection anchor: SectionID) throws(Error) {
        let index = try _index(ofSection: anchor)
        try _validateNewSections(sections)
        _insertSections(sections, at: index + 1)
    }

    /// Deletes sections together with their items.
    ///
    /// - Parameter sections: The identifiers of the sections to delete.
    /// - Throws: ``SnapshotError/Code/unknownSection`` if a section is not in the snapshot.
    /// - Complexity: O(n), where n is the number of items in the snapshot.
    public mutating func deleteSections(_ sections: [SectionID]) throws(Error) {
        var doomed: Set<Int> = []
        for id in sections { doomed.insert(try _index(ofSection: id)) }
        guard let first = doomed.min() else { return }
        for index in doomed {
            for item in _sectionItems[index] { _forgetItem(item.id) }
            _reloadedSectionIDs.remove(_sectionIDs[index])
            _sectionIndices[_sectionIDs[index]] = nil
        }
        for index in doomed.sorted(by: >) {
            _sectionIDs.remove(at: index)
            _sectionItems.remove(at: index)
        }
        _reindexSections(from: first)
    }

    /// Moves a section, with its items, before another section.
    ///
    /// - Parameters:
    ///   - section: The section to move.
    ///   - anchor: The section before which it goes.
    /// - Throws: ``SnapshotError/Code/unknownSection`` if either is unknown, ``SnapshotError/Code/selfRelativeMove``
    ///   if they are the same.
    /// - Complexity: O(m), where m is the number of items in the sections between the two positions and after.
    public mutating func moveSection(_ section: SectionID, beforeSection anchor: SectionID) throws(Error) {
        try _moveSection(section, relativeTo: anchor, offset: 0)
    }

    /// Moves a section, with its items, after another section.
    ///
    /// - Parameters:
    ///   - section: The section to move.
    ///   - anchor: The section after which it goes.
    /// - Throws: ``SnapshotError/Code/unknownSection`` if either is unknown, ``SnapshotError/Code/selfRelativeMove``
    ///   if they are the same.
    /// - Complexity: O(m), where m is the number of items in the sections between the two positions and after.
    public mutating func moveSection(_ section: SectionID, afterSection anchor: SectionID) throws(Error) {
        try _moveSection(section, relativeTo: anchor, offset: 1)
    }

    /// Marks sections for reload: the next changeset computed *to* this snapshot reports each of them as reloaded,
    /// although sections carry no content of their own.
    ///
    /// - Throws: ``SnapshotError/Code/unknownSection`` if a section is not in the snapshot.
    /// - Complexity: O(k)
    public mutating func reloadSections(_ sections: [SectionID]) throws(Error) {
        for id in sections { _ = try _index(ofSection: id) }
        _reloadedSectionIDs.formUnion(sections)
    }
}

// MARK: - Items

extension Snapshot {
    /// Appends items at the end of a section.
    ///
    /// - Parameters:
    ///   - items: The new items.
    ///   - section: The section to append to; `nil` (the default) means the last section.
    /// - Throws: ``SnapshotError/Code/unknownSection`` for an unknown section, ``SnapshotError/Code/noSection`` if no
    ///   section is named and the snapshot has none, ``SnapshotError/Code/duplicateItem`` if an item identifier is
    ///   already present or appears twice.
    /// - Complexity: O(k + s), where k is the number of new items and s the number of sections that follow.
    public mutating func appendItems(_ items: [Item], toSection section: SectionID? = nil) throws(Error) {
        let sectionIndex: Int
        if let section {
            sectionIndex = try _index(ofSection: section)
        } else {
            guard !_sectionIDs.isEmpty else { throw Error(.noSection) }
            sectionIndex = _sectionIDs.count - 1
        }
        try _validateNewItems(items)
        _insertItems(items, at: ItemIndexPath(section: sectionIndex, item: _sectionItems[sectionIndex].count))
    }

    /// Inserts items before an existing item, in that item's section.
    ///
    /// - Parameters:
    ///   - items: The new items.
    ///   - anchor: The item before which they are inserted.
    /// - Throws: ``SnapshotError/Code/unknownItem`` for an unknown anchor, ``SnapshotError/Code/duplicateItem`` if an
    ///   item identifier is already present or appears twice.
    /// - Complexity: O(k + m), where m is the number of items that follow in the section.
    public mutating func insertItems(_ items: [Item], beforeItem anchor: ItemID) throws(Error) {
        let path = try _indexPath(ofItem: anchor)
        try _validateNewItems(items)
        _insertItems(items, at: path)
    }

    /// Inserts items after an existing item, in that item's section.
    ///
    /// - Parameters:
    ///   - items: The new items.
    ///   - anchor: The item after which they are inserted.
    /// - Throws: ``SnapshotError/Code/unknownItem`` for an unknown anchor, ``SnapshotError/Code/duplicateItem`` if an
    ///   item identifier is already present or appears twice.
    /// - Complexity: O(k + m), where m is the number of items that follow in the section.
    public mutating func insertItems(_ items: [Item], afterItem anchor: ItemID) throws(Error) {
        var path = try _indexPath(ofItem: anchor)
        try _validateNewItems(items)
        path.item += 1
        _insertItems(items, at: path)
    }

    /// Deletes items.
    ///
    /// - Parameter items: The identifiers of the items to delete.
    /// - Throws: ``SnapshotError/Code/unknownItem`` if an item is not in the snapshot.
    /// - Complexity: O(k + m), where m is the number of items in the sections that lose items.
    public mutating func deleteItems(_ items: [ItemID]) throws(Error) {
        var doomedBySection: [Int: Set<Int>] = [:]
        for id in items {
            let path = try _indexPath(ofItem: id)
            doomedBySection[path.section, default: []].insert(path.item)
        }
        for id in items { _forgetItem(id) }
        for (section, doomed) in doomedBySection {
            var index = 0
            _sectionItems[section].removeAll { _ in
                defer { index += 1 }
                return doomed.contains(index)
            }
            _reindexItems(inSection: section, from: doomed.min()!)
        }
        _recomputeSectionStarts(from: doomedBySection.keys.min() ?? _sectionIDs.count)
    }

    /// Deletes every item *and every section*, leaving an empty snapshot, exactly as
    /// `NSDiffableDataSourceSnapshot.deleteAllItems()` does.
    ///
    /// - Complexity: O(1) amortized (the storage is released).
    public mutating func deleteAllItems() {
        self = Snapshot()
    }

    /// Moves an item before another item, which may be in another section.
    ///
    /// - Parameters:
    ///   - item: The item to move.
    ///   - anchor: The item before which it goes.
    /// - Throws: ``SnapshotError/Code/unknownItem`` if either is unknown, ``SnapshotError/Code/selfRelativeMove`` if
    ///   they are the same.
    /// - Complexity: O(m), where m is the number of items in the one or two sections involved.
    public mutating func moveItem(_ item: ItemID, beforeItem anchor: ItemID) throws(Error) {
        try _moveItem(item, relativeTo: anchor, offset: 0)
    }

    /// Moves an item after another item, which may be in another section.
    ///
    /// - Parameters:
    ///   - item: The item to move.
    ///   - anchor: The item after which it goes.
    /// - Throws: ``SnapshotError/Code/unknownItem`` if either is unknown, ``SnapshotError/Code/selfRelativeMove`` if
    ///   they are the same.
    /// - Complexity: O(m), where m is the number of items in the one or two sections involved.
    public mutating func moveItem(_ item: ItemID, afterItem anchor: ItemID) throws(Error) {
        try _moveItem(item, relativeTo: anchor, offset: 1)
    }

    /// Replaces the content of existing items with the given values, matched by identifier. Positions do not change.
    ///
    /// The next changeset computed to this snapshot reports an update for every item whose content now differs.
    ///
    /// - Parameter items: The new values; each identifier must already be in the snapshot.
    /// - Throws: ``SnapshotError/Code/unknownItem`` if an identifier is not in the snapshot.
    /// - Complexity: O(k)
    public mutating func updateItems(_ items: [Item]) throws(Error) {
        var paths: [ItemIndexPath] = []
        paths.reserveCapacity(items.count)
        for item in items { paths.append(try _indexPath(ofItem: item.id)) }
        for (item, path) in zip(items, paths) { _sectionItems[path.section][path.item] = item }
    }

    /// Marks items for reload: the next changeset computed *to* this snapshot reports each of them as updated, even
    /// if its content compares equal.
    ///
    /// - Throws: ``SnapshotError/Code/unknownItem`` if an item is not in the snapshot.
    /// - Complexity: O(k)
    public mutating func reloadItems(_ items: [ItemID]) throws(Error) {
        for id in items { _ = try _indexPath(ofItem: id) }
        _reloadedItemIDs.formUnion(items)
    }

    /// Marks items for reconfiguration (an in-place update, lighter than a reload for a UI): the next changeset
    /// computed *to* this snapshot reports each of them as updated, even if its content compares equal.
    ///
    /// - Throws: ``SnapshotError/Code/unknownItem`` if an item is not in the snapshot.
    /// - Complexity: O(k)
    public mutating func reconfigureItems(_ items: [ItemID]) throws(Error) {
        for id in items { _ = try _indexPath(ofItem: id) }
        _reconfiguredItemIDs.formUnion(items)
    }

    /// Removes every reload and reconfigure mark.
    /// - Complexity: O(1) amortized.
    public mutating func removeMarks() {
        _reloadedSectionIDs = []
        _reloadedItemIDs = []
        _reconfiguredItemIDs = []
    }
}

// MARK: - Internals

extension Snapshot {
    @usableFromInline func _index(ofSection id: SectionID) throws(Error) -> Int {
        guard let index = _sectionIndices[id] else { throw Error(.unknownSection, section: id) }
        return index
    }

    @usableFromInline func _indexPath(ofItem id: ItemID) throws(Error) -> ItemIndexPath {
        guard let path = _itemPaths[id] else { throw Error(.unknownItem, item: id) }
        return path
    }

    func _validateNewSections(_ sections: [SectionID]) throws(Error) {
        var seen: Set<SectionID> = []
        for id in sections where _sectionIndices[id] != nil || !seen.insert(id).inserted {
            throw Error(.duplicateSection, section: id)
        }
    }

    func _validateNewItems(_ items: [Item]) throws(Error) {
        var seen: Set<ItemID> = []
        seen.reserveCapacity(items.count)
        for item in items where _itemPaths[item.id] != nil || !seen.insert(item.id).inserted {
            throw Error(.duplicateItem, item: item.id)
        }
    }

    mutating func _insertSections(_ sections: [SectionID], at index: Int) {
        _sectionIDs.insert(contentsOf: sections, at: index)
        _sectionItems.insert(contentsOf: repeatElement([], count: sections.count), at: index)
        _reindexSections(from: index)
    }

    mutating func _insertItems(_ items: [Item], at path: ItemIndexPath) {
        _sectionItems[path.section].insert(contentsOf: items, at: path.item)
        _itemPaths.reserveCapacity(_itemPaths.count + items.count)
        _reindexItems(inSection: path.section, from: path.item)
        _recomputeSectionStarts(from: path.section)
    }

    mutating func _forgetItem(_ id: ItemID) {
        _itemPaths[id] = nil
        _reloadedItemIDs.remove(id)
        _reconfiguredItemIDs.remove(id)
    }

    mutating func _moveSection(_ id: SectionID, relativeTo anchor: SectionID, offset: Int) throws(Error) {
        let from = try _index(ofSection: id)
        var to = try _index(ofSection: anchor)
        guard from != to else { throw Error(.selfRelativeMove, section: id) }
        let items = _sectionItems.remove(at: from)
        _sectionIDs.remove(at: from)
        if to > from { to -= 1 }
        to += offset
        _sectionIDs.insert(id, at: to)
        _sectionItems.insert(items, at: to)
        _reindexSections(from: min(from, to))
    }

    mutating func _moveItem(_ id: ItemID, relativeTo anchor: ItemID, offset: Int) throws(Error) {
        let from = try _indexPath(ofItem: id)
        var to = try _indexPath(ofItem: anchor)
        guard from != to else { throw Error(.selfRelativeMove, item: id) }
        let item = _sectionItems[from.section].remove(at: from.item)
        if to.section == from.section && to.item > from.item { to.item -= 1 }
        to.item += offset
        _sectionItems[to.section].insert(item, at: to.item)
        if from.section == to.section {
            _reindexItems(inSection: from.section, from: min(from.item, to.item))
        } else {
            _reindexItems(inSection: from.section, from: from.item)
            _reindexItems(inSection: to.section, from: to.item)
        }
        _recomputeSectionStarts(from: min(from.section, to.section))
    }

    /// Brings section indices, section starts and item paths up to date for every section from `first` on.
    mutating func _reindexSections(from first: Int) {
        for section in first..<_sectionIDs.count {
            _sectionIndices[_sectionIDs[section]] = section
            _reindexItems(inSection: section, from: 0)
        }
        _recomputeSectionStarts(from: first)
    }

    /// Brings the paths of the items of one section up to date, from index `first` on.
    mutating func _reindexItems(inSection section: Int, from first: Int) {
        let items = _sectionItems[section]
        for index in first..<items.count {
            _itemPaths[items[index].id] = ItemIndexPath(section: section, item: index)
        }
    }

    /// Recomputes the flat start index of every section after `first`, and the total. The starts of sections up to
    /// and including `first` must be right already.
    mutating func _recomputeSectionStarts(from first: Int) {
        _sectionStarts.removeLast(_sectionStarts.count - first - 1)
        for section in first..<_sectionIDs.count {
            _sectionStarts.append(_sectionStarts[section] + _sectionItems[section].count)
        }
    }
}
