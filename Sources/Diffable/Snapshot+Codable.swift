// The wire form of a snapshot:
//   {"sections": [{"id": <SectionID>, "items": [<Item>, …]}, …],
//    "reloadedSections": [<SectionID>], "reloadedItems": [<ItemID>], "reconfiguredItems": [<ItemID>]}
// The three mark lists are present only when not empty. Decoding checks every invariant (unique identifiers, marks
// naming present elements) and reports a violation as `DecodingError.dataCorrupted`.

extension Snapshot: Codable where SectionID: Codable, Item: Codable, Item.ID: Codable {
    private enum CodingKeys: String, CodingKey {
        case sections, reloadedSections, reloadedItems, reconfiguredItems
    }

    private struct Section: Codable {
        var id: SectionID
        var items: [Item]
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let sections = try container.decode([Section].self, forKey: .sections)
        do {
            try self.init(sectionIDs: sections.map(\.id), sectionItems: sections.map(\.items))
            try reloadSections(try container.decodeIfPresent([SectionID].self, forKey: .reloadedSections) ?? [])
            try reloadItems(try container.decodeIfPresent([ItemID].self, forKey: .reloadedItems) ?? [])
            try reconfigureItems(try container.decodeIfPresent([ItemID].self, forKey: .reconfiguredItems) ?? [])
        } catch let error as Error {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "Invalid snapshot: \(error)",
                    underlyingError: error
                )
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(zip(_sectionIDs, _sectionItems).map { Section(id: $0, items: $1) }, forKey: .sections)
        if !_reloadedSectionIDs.isEmpty { try container.encode(Array(_reloadedSectionIDs), forKey: .reloadedSections) }
        if !_reloadedItemIDs.isEmpty { try container.encode(Array(_reloadedItemIDs), forKey: .reloadedItems) }
        if !_reconfiguredItemIDs.isEmpty {
            try container.encode(Array(_reconfiguredItemIDs), forKey: .reconfiguredItems)
        }
    }
}
