extension Snapshot {
    /// Checks that every index the snapshot maintains agrees with its sections and items. Tests call it after every
    /// edit; a violation is a bug in this module.
    ///
    /// - Complexity: O(n)
    func checkInvariants() {
        precondition(_sectionIDs.count == _sectionItems.count, "one item array per section")
        precondition(_sectionIndices.count == _sectionIDs.count, "section index has one entry per section")
        precondition(_sectionStarts.count == _sectionIDs.count + 1, "one start per section, plus the total")
        precondition(_sectionStarts[0] == 0, "the first section starts at 0")
        var itemCount = 0
        for (section, id) in _sectionIDs.enumerated() {
            precondition(_sectionIndices[id] == section, "section \(id) indexed at \(section)")
            precondition(_sectionStarts[section] == itemCount, "section \(id) starts after the items before it")
            for (index, item) in _sectionItems[section].enumerated() {
                precondition(
                    _itemPaths[item.id] == ItemIndexPath(section: section, item: index),
                    "item \(item.id) indexed at [\(section), \(index)]"
                )
            }
            itemCount += _sectionItems[section].count
        }
        precondition(_sectionStarts[_sectionIDs.count] == itemCount, "the last start is the item count")
        precondition(_itemPaths.count == itemCount, "item index has one entry per item (identifiers are unique)")
        precondition(
            _reloadedSectionIDs.allSatisfy { _sectionIndices[$0] != nil },
            "reload marks name sections present"
        )
        precondition(_reloadedItemIDs.allSatisfy { _itemPaths[$0] != nil }, "reload marks name items present")
        precondition(_reconfiguredItemIDs.allSatisfy { _itemPaths[$0] != nil }, "reconfigure marks name items present")
    }
}
