/// The position of an item in a ``Snapshot``: the index of its section and its index inside that section.
///
/// Index paths order lexicographically (section first), which is the order in which a changeset's insertions are
/// applied. Encoded as a two-element array `[section, item]`.
public struct ItemIndexPath: Hashable, Comparable, Sendable {
    /// The index of the section.
    public var section: Int
    /// The index of the item inside its section.
    public var item: Int

    /// Creates an index path.
    ///
    /// - Parameters:
    ///   - section: The index of the section.
    ///   - item: The index of the item inside that section.
    @inlinable
    public init(section: Int, item: Int) {
        self.section = section
        self.item = item
    }

    @inlinable
    public static func < (lhs: ItemIndexPath, rhs: ItemIndexPath) -> Bool {
        (lhs.section, lhs.item) < (rhs.section, rhs.item)
    }
}

extension ItemIndexPath: CustomStringConvertible {
    public var description: String { "[\(section), \(item)]" }
}

extension ItemIndexPath: Codable {
    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        let section = try container.decode(Int.self)
        let item = try container.decode(Int.self)
        guard container.isAtEnd else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "An index path has exactly two elements: [section, item]."
            )
        }
        self.init(section: section, item: item)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(section)
        try container.encode(item)
    }
}
