/// The whole state of a sectioned list at one moment: ordered sections, each holding ordered items, all keyed by
/// stable identifiers.
///
/// A snapshot is the Swift, value-type, non-trapping counterpart of UIKit's `NSDiffableDataSourceSnapshot`. Build the
/// state you want to show, then compute how it differs from the previous one with ``difference(from:)`` and ship or
/// replay the resulting ``Changeset``.
///
/// Items carry both an *identity* (`Item.ID`, from `Identifiable`) and *content* (everything `==` compares). Two
/// snapshots holding an item with the same identifier but different content differ by an **update** of that item,
/// never by a deletion and an insertion.
///
/// ```swift
/// struct Peer: Identifiable, Equatable, Sendable { var id: String; var address: String }
///
/// var old = Snapshot<String, Peer>()
/// try old.appendSections(["peers"])
/// try old.appendItems([Peer(id: "a", address: "10.0.0.1"), Peer(id: "b", address: "10.0.0.2")])
///
/// var new = old
/// try new.updateItems([Peer(id: "a", address: "10.0.0.9")])
/// try new.moveItem("b", beforeItem: "a")
///
/// let changes = new.difference(from: old)   // 1 move, 1 update
/// assert(try old.applying(changes) == new)
/// ```
///
/// Every edit that can fail (a duplicate identifier, an unknown anchor, …) throws a ``SnapshotError`` naming the
/// offending identifier and leaves the snapshot unchanged.
///
/// ## Performance
/// Every query — counts, identifiers, the section of an item, the index path of an item, the item at an index path —
/// is O(1) (expected, for those that hash an identifier); only the queries that return whole arrays are O(n).
/// Appending is O(k) for k new elements. Edits in the middle of a section are O(s + k), where s is the number of
/// elements that follow in that section, because the snapshot keeps every element's position up to date; edits that
/// shift whole sections (inserting, deleting or moving a section) are O(n) in the items of the sections that follow.
public struct Snapshot<SectionID: Hashable & Sendable, Item: Identifiable & Equatable> where Item.ID: Sendable {
    /// The identifier type of the items.
    public typealias ItemID = Item.ID
    /// The error thrown by edits that cannot be performed.
    public typealias Error = SnapshotError<SectionID, ItemID>

    /// The section identifiers, in order.
    @usableFromInline var _sectionIDs: [SectionID] = []
    /// The items of each section, parallel to `_sectionIDs`.
    @usableFromInline var _sectionItems: [[Item]] = []
    /// The index of each section in `_sectionIDs`.
    @usableFromInline var _sectionIndices: [SectionID: Int] = [:]
    /// `_sectionStarts[s]` is the flat index of the first item of section `s`; one more element holds the item count.
    @usableFromInline var _sectionStarts: [Int] = [0]
    /// The current index path of every item.
    @usableFromInline var _itemPaths: [ItemID: ItemIndexPath] = [:]

    @usableFromInline var _reloadedSectionIDs: Set<SectionID> = []
    @usableFromInline var _reloadedItemIDs: Set<ItemID> = []
    @usableFromInline var _reconfiguredItemIDs: Set<ItemID> = []

    /// Creates an empty snapshot: no sections, no items.
    public init() {}

    /// Creates a snapshot from sections and their items, in order.
    ///
    /// - Parameter sections: Each section's identifier and its items.
    /// - Throws: ``SnapshotError`` if a section or item identifier appears twice.
    /// - Complexity: O(n), where n is the number of sections plus items.
    public init(_ sections: some Sequence<(SectionID, [Item])>) throws(Error) {
        for (sectionID, items) in sections {
            try appendSections([sectionID])
            try appendItems(items, toSection: sectionID)
        }
    }
}

// MARK: - Queries

extension Snapshot {
    /// The number of sections.
    /// - Complexity: O(1)
    @inlinable public var numberOfSections: Int { _sectionIDs.count }

    /// The number of items in all sections.
    /// - Complexity: O(1)
    @inlinable public var numberOfItems: Int { _sectionStarts[_sectionStarts.count - 1] }

    /// The section identifiers, in order.
    /// - Complexity: O(1)
    @inlinable public var sectionIdentifiers: [SectionID] { _sectionIDs }

    /// The identifiers of all items, section by section.
    /// - Complexity: O(n), where n is the number of items.
    public var itemIdentifiers: [ItemID] { _sectionItems.flatMap { $0.map(\.id) } }

    /// All items, section by section.
    /// - Complexity: O(n), where n is the number of items.
    public var items: [Item] { Array(_sectionItems.joined()) }

    /// The sections, each with its items, in order.
    /// - Complexity: O(s), where s is the number of sections (the item arrays are shared, not copied).
    public var sections: [(id: SectionID, items: [Item])] {
        zip(_sectionIDs, _sectionItems).map { (id: $0, items: $1) }
    }

    /// Whether the snapshot contains a section with this identifier.
    /// - Complexity: O(1) expected.
    @inlinable public func contains(section: SectionID) -> Bool { _sectionIndices[section] != nil }

    /// Whether the snapshot contains an item with this identifier.
    /// - Complexity: O(1) expected.
    @inlinable public func contains(item: ItemID) -> Bool { _itemPaths[item] != nil }

    /// The number of items in a section, or `nil` if there is no such section.
    /// - Complexity: O(1) expected.
    public func numberOfItems(inSection section: SectionID) -> Int? {
        _sectionIndices[section].map { _sectionItems[$0].count }
    }

    /// The items of a section, in order, or `nil` if there is no such section.
    /// - Complexity: O(1) expected.
    public func items(inSection section: SectionID) -> [Item]? {
        _sectionIndices[section].map { _sectionItems[$0] }
    }

    /// The identifiers of the items of a section, in order, or `nil` if there is no such section.
    /// - Complexity: O(k), where k is the number of items in the section.
    public func itemIdentifiers(inSection section: SectionID) -> [ItemID]? {
        _sectionIndices[section].map { _sectionItems[$0].map(\.id) }
    }

    /// The identifier of the section that contains an item, or `nil` if there is no such item.
    /// - Complexity: O(1) expected.
    public func sectionIdentifier(containingItem item: ItemID) -> SectionID? {
        _itemPaths[item].map { _sectionIDs[$0.section] }
    }

    /// The index of a section, or `nil` if there is no such section.
    /// - Complexity: O(1) expected.
    @inlinable public func index(ofSection section: SectionID) -> Int? { _sectionIndices[section] }

    /// The index of an item among all items of the snapshot (section by section), or `nil` if there is no such item.
    ///
    /// This is `NSDiffableDataSourceSnapshot.indexOfItem(_:)`. For the position inside the item's section, use
    /// ``indexPath(ofItem:)``.
    /// - Complexity: O(1) expected.
    public func index(ofItem item: ItemID) -> Int? {
        _itemPaths[item].map { _sectionStarts[$0.section] + $0.item }
    }

    /// The index path (section index, index inside the section) of an item, or `nil` if there is no such item.
    /// - Complexity: O(1) expected.
    @inlinable public func indexPath(ofItem item: ItemID) -> ItemIndexPath? { _itemPaths[item] }

    /// The item at an index path, or `nil` if the index path is out of bounds.
    /// - Complexity: O(1)
    public func item(at indexPath: ItemIndexPath) -> Item? {
        guard _sectionItems.indices.contains(indexPath.section) else { return nil }
        let items = _sectionItems[indexPath.section]
        return items.indices.contains(indexPath.item) ? items[indexPath.item] : nil
    }

    /// The item with an identifier, or `nil` if there is no such item.
    /// - Complexity: O(1) expected.
    public func item(withIdentifier id: ItemID) -> Item? {
        _itemPaths[id].map { _sectionItems[$0.section][$0.item] }
    }

    /// The sections marked with ``reloadSections(_:)`` since the snapshot was created.
    public var reloadedSectionIdentifiers: Set<SectionID> { _reloadedSectionIDs }
    /// The items marked with ``reloadItems(_:)`` since the snapshot was created.
    public var reloadedItemIdentifiers: Set<ItemID> { _reloadedItemIDs }
    /// The items marked with ``reconfigureItems(_:)`` since the snapshot was created.
    public var reconfiguredItemIdentifiers: Set<ItemID> { _reconfiguredItemIDs }
}

// MARK: - Conformances

extension Snapshot: Equatable {
    /// Two snapshots are equal when they hold the same sections and items, in the same order, with equal content,
    /// and the same reload and reconfigure marks.
    /// - Complexity: O(n)
    public static func == (lhs: Snapshot, rhs: Snapshot) -> Bool {
        lhs._sectionIDs == rhs._sectionIDs && lhs._sectionItems == rhs._sectionItems
            && lhs._reloadedSectionIDs == rhs._reloadedSectionIDs && lhs._reloadedItemIDs == rhs._reloadedItemIDs
            && lhs._reconfiguredItemIDs == rhs._reconfiguredItemIDs
    }
}

extension Snapshot: Sendable where Item: Sendable {}

extension Snapshot: CustomStringConvertible {
    public var description: String {
        let body = zip(_sectionIDs, _sectionItems).map { id, items in
            "\(id): [\(items.map { "\($0.id)" }.joined(separator: ", "))]"
        }
        return "Snapshot(\(body.joined(separator: "; ")))"
    }
}
