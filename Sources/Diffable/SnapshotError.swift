/// An edit that a ``Snapshot`` refused. The snapshot is left exactly as it was before the call.
///
/// `NSDiffableDataSourceSnapshot` raises an exception for these; a ``Snapshot`` throws instead, so that a program
/// editing a snapshot from input it did not create (the network, a client) never traps.
public struct SnapshotError<SectionID: Hashable & Sendable, ItemID: Hashable & Sendable>: Error, Hashable {
    /// What went wrong. New codes may be added; switch over them with a `default` case.
    public typealias Code = SnapshotErrorCode

    /// What went wrong.
    public var code: Code
    /// The offending section identifier, when the error is about a section.
    public var sectionID: SectionID?
    /// The offending item identifier, when the error is about an item.
    public var itemID: ItemID?

    /// Creates an error about a section.
    public init(_ code: Code, section: SectionID) {
        self.code = code
        self.sectionID = section
        self.itemID = nil
    }

    /// Creates an error about an item.
    public init(_ code: Code, item: ItemID) {
        self.code = code
        self.sectionID = nil
        self.itemID = item
    }

    /// Creates an error that names no identifier (``Code/noSection``).
    public init(_ code: Code) {
        self.code = code
        self.sectionID = nil
        self.itemID = nil
    }
}

extension SnapshotError: CustomStringConvertible {
    public var description: String {
        if let sectionID { return "\(code): section \(sectionID)" }
        if let itemID { return "\(code): item \(itemID)" }
        return "\(code)"
    }
}

/// What went wrong in a ``SnapshotError``. New codes may be added; switch over them with a `default` case.
public struct SnapshotErrorCode: Hashable, Sendable, CustomStringConvertible {
    fileprivate enum Base: Hashable, Sendable {
        case duplicateSection, duplicateItem, unknownSection, unknownItem, noSection, selfRelativeMove
    }
    fileprivate var base: Base

    /// A section with this identifier is already in the snapshot (or appears twice in the argument).
    public static let duplicateSection = SnapshotErrorCode(base: .duplicateSection)
    /// An item with this identifier is already in the snapshot (or appears twice in the argument).
    public static let duplicateItem = SnapshotErrorCode(base: .duplicateItem)
    /// No section with this identifier is in the snapshot.
    public static let unknownSection = SnapshotErrorCode(base: .unknownSection)
    /// No item with this identifier is in the snapshot.
    public static let unknownItem = SnapshotErrorCode(base: .unknownItem)
    /// Items were appended without naming a section, and the snapshot has no section to append them to.
    public static let noSection = SnapshotErrorCode(base: .noSection)
    /// A section or item was to be moved before or after itself.
    public static let selfRelativeMove = SnapshotErrorCode(base: .selfRelativeMove)

    public var description: String {
        switch base {
        case .duplicateSection: "duplicate section"
        case .duplicateItem: "duplicate item"
        case .unknownSection: "unknown section"
        case .unknownItem: "unknown item"
        case .noSection: "no section"
        case .selfRelativeMove: "move relative to itself"
        }
    }
}
