/// The difference between two ``Snapshot``s: what to delete, insert, move and update to turn the older one into the
/// newer one. Produced by ``Snapshot/difference(from:)``, replayed by ``Snapshot/applying(_:)``.
///
/// ## Index semantics
/// A changeset uses UIKit's batch-update conventions, made precise so that any program can replay it:
///
/// - **Old** positions (in the snapshot the changeset applies to): `sectionDeletes[].from`, `sectionMoves[].from`,
///   `itemDeletes[].from`, `itemMoves[].from`.
/// - **New** positions (in the resulting snapshot): `sectionInserts[].at`, `sectionMoves[].to`,
///   `sectionReloads[].at`, `itemInserts[].at`, `itemMoves[].to`, `itemUpdates[].at`.
/// - Every element that disappears is listed: the items of a deleted section are listed in `itemDeletes` (or in
///   `itemMoves`, if they survive elsewhere); an inserted section arrives empty and its items are listed in
///   `itemInserts` or `itemMoves`. A *moved* section carries the items that stay in it; only items that change
///   section, or fall out of order inside their section, are listed as item moves.
/// - Items and sections carry their identifiers, so a replayer can check that what it removes is what it expects.
///
/// To apply a changeset to `old`, in this order (this is what ``Snapshot/applying(_:)`` does):
/// 1. Remove every item at `itemDeletes[].from` and `itemMoves[].from` (old index paths), keeping the moved ones
///    aside by identifier.
/// 2. Remove every section at `sectionDeletes[].from` and `sectionMoves[].from` (old indices; a deleted section is
///    empty by now), keeping the moved ones, with their remaining items, aside.
/// 3. Insert the sections of `sectionInserts` (empty) and `sectionMoves` (kept aside), in increasing order of
///    their new index, each at its new index.
/// 4. Insert the items of `itemInserts` (the payload) and `itemMoves` (kept aside), in increasing order of their
///    new index path, each at its new index path.
/// 5. Replace the item at each `itemUpdates[].at` with the payload. `sectionReloads` change no data; they tell a
///    user interface to redraw a section.
///
/// Removals by old position are done "all at once": remove the highest positions first, or filter each section in
/// one pass. Insertions in increasing order of final position land every element at its final place.
///
/// ## Minimality
/// `difference(from:)` reports the fewest moves possible: an item is reported as moved if and only if it changed
/// section, or it is not on a chosen longest increasing subsequence of the items that stayed in their section
/// (compared by old position). The same holds for sections. A rotation `[A, B, C, D, E] → [B, C, D, E, A]` is one
/// move. Updates are reported exactly for the items whose content differs (`!=`) or that the new snapshot marks
/// for reload or reconfiguration; an update of a moved item is reported in addition to its move.
public struct Changeset<SectionID: Hashable & Sendable, Item: Identifiable & Equatable> where Item.ID: Sendable {
    /// A section removed: its identifier and its index in the old snapshot.
    public struct SectionDelete: Hashable, Sendable {
        /// The section's identifier.
        public var id: SectionID
        /// Its index in the old snapshot.
        public var from: Int
        /// Creates a section deletion.
        public init(id: SectionID, from: Int) {
            self.id = id
            self.from = from
        }
    }

    /// A section and its index in the new snapshot: a section added (empty), or one marked for reload.
    public struct SectionInsert: Hashable, Sendable {
        /// The section's identifier.
        public var id: SectionID
        /// Its index in the new snapshot.
        public var at: Int
        /// Creates a section insertion or reload.
        public init(id: SectionID, at: Int) {
            self.id = id
            self.at = at
        }
    }

    /// A section marked for reload: its identifier and its index in the new snapshot.
    public typealias SectionReload = SectionInsert

    /// A section moved, with the items that stay in it.
    public struct SectionMove: Hashable, Sendable {
        /// The section's identifier.
        public var id: SectionID
        /// Its index in the old snapshot.
        public var from: Int
        /// Its index in the new snapshot.
        public var to: Int
        /// Creates a section move.
        public init(id: SectionID, from: Int, to: Int) {
            self.id = id
            self.from = from
            self.to = to
        }
    }

    /// An item removed: its identifier and its index path in the old snapshot.
    public struct ItemDelete: Hashable, Sendable {
        /// The item's identifier.
        public var id: Item.ID
        /// Its index path in the old snapshot.
        public var from: ItemIndexPath
        /// Creates an item deletion.
        public init(id: Item.ID, from: ItemIndexPath) {
            self.id = id
            self.from = from
        }
    }

    /// An item added, or updated: the item and its index path in the new snapshot.
    public struct ItemPayload {
        /// The item, with its new content.
        public var item: Item
        /// Its index path in the new snapshot.
        public var at: ItemIndexPath
        /// Creates an item payload.
        public init(item: Item, at: ItemIndexPath) {
            self.item = item
            self.at = at
        }
    }

    /// An item moved: its identifier, old and new index paths.
    public struct ItemMove: Hashable, Sendable {
        /// The item's identifier.
        public var id: Item.ID
        /// Its index path in the old snapshot.
        public var from: ItemIndexPath
        /// Its index path in the new snapshot.
        public var to: ItemIndexPath
        /// Creates an item move.
        public init(id: Item.ID, from: ItemIndexPath, to: ItemIndexPath) {
            self.id = id
            self.from = from
            self.to = to
        }
    }

    /// Sections removed, in increasing order of old index.
    public var sectionDeletes: [SectionDelete] = []
    /// Sections added, in increasing order of new index.
    public var sectionInserts: [SectionInsert] = []
    /// Sections moved, in increasing order of new index.
    public var sectionMoves: [SectionMove] = []
    /// Sections marked for reload in the new snapshot (that existed in the old one), by new index, in increasing
    /// order.
    public var sectionReloads: [SectionReload] = []
    /// Items removed, in increasing order of old index path.
    public var itemDeletes: [ItemDelete] = []
    /// Items added, in increasing order of new index path.
    public var itemInserts: [ItemPayload] = []
    /// Items moved, in increasing order of new index path.
    public var itemMoves: [ItemMove] = []
    /// Items whose content changed or that were marked for reload or reconfiguration, in increasing order of new
    /// index path.
    public var itemUpdates: [ItemPayload] = []

    /// Creates an empty changeset.
    public init() {}

    /// Whether the changeset changes nothing.
    /// - Complexity: O(1)
    public var isEmpty: Bool {
        sectionDeletes.isEmpty && sectionInserts.isEmpty && sectionMoves.isEmpty && sectionReloads.isEmpty
            && itemDeletes.isEmpty && itemInserts.isEmpty && itemMoves.isEmpty && itemUpdates.isEmpty
    }

    /// The number of changes of every kind together.
    /// - Complexity: O(1)
    public var count: Int {
        sectionDeletes.count + sectionInserts.count + sectionMoves.count + sectionReloads.count
            + itemDeletes.count + itemInserts.count + itemMoves.count + itemUpdates.count
    }
}

extension Changeset.ItemPayload: Equatable {}
extension Changeset.ItemPayload: Sendable where Item: Sendable {}
extension Changeset: Equatable {}
extension Changeset: Sendable where Item: Sendable {}

// Codable conformances of the parts live here, because synthesis needs the declaring file; see Changeset+Codable.
extension Changeset.SectionDelete: Codable where SectionID: Codable {}
extension Changeset.SectionInsert: Codable where SectionID: Codable {}
extension Changeset.SectionMove: Codable where SectionID: Codable {}
extension Changeset.ItemDelete: Codable where Item.ID: Codable {}
extension Changeset.ItemMove: Codable where Item.ID: Codable {}
extension Changeset.ItemPayload: Codable where Item: Codable {}

extension Changeset: CustomStringConvertible {
    /// A one-line summary of the counts, e.g. `Changeset(sections: -1; items: +2 -1 ↕3 ~4)`.
    public var description: String {
        func part(_ name: String, _ counts: [(String, Int)]) -> String? {
            let nonzero = counts.filter { $0.1 > 0 }.map { "\($0.0)\($0.1)" }
            return nonzero.isEmpty ? nil : "\(name): \(nonzero.joined(separator: " "))"
        }
        let parts = [
            part(
                "sections",
                [
                    ("+", sectionInserts.count), ("-", sectionDeletes.count),
                    ("↕", sectionMoves.count), ("⟳", sectionReloads.count),
                ]
            ),
            part(
                "items",
                [
                    ("+", itemInserts.count), ("-", itemDeletes.count),
                    ("↕", itemMoves.count), ("~", itemUpdates.count),
                ]
            ),
        ].compactMap { $0 }
        return "Changeset(\(parts.isEmpty ? "empty" : parts.joined(separator: "; ")))"
    }
}

extension Changeset: CustomDebugStringConvertible {
    /// Every change on a line of its own, in the order a replayer performs them.
    public var debugDescription: String {
        var lines = [description]
        lines += itemDeletes.map { "  - item \($0.id) from \($0.from)" }
        lines += sectionDeletes.map { "  - section \($0.id) from \($0.from)" }
        lines += sectionMoves.map { "  ↕ section \($0.id) from \($0.from) to \($0.to)" }
        lines += sectionInserts.map { "  + section \($0.id) at \($0.at)" }
        lines += itemMoves.map { "  ↕ item \($0.id) from \($0.from) to \($0.to)" }
        lines += itemInserts.map { "  + item \($0.item.id) at \($0.at)" }
        lines += itemUpdates.map { "  ~ item \($0.item.id) at \($0.at)" }
        lines += sectionReloads.map { "  ⟳ section \($0.id) at \($0.at)" }
        return lines.joined(separator: "\n")
    }
}
