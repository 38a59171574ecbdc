// The wire form of a changeset: an object with up to eight arrays, each present only when not empty (a decoder
// treats a missing array as empty):
//   "sectionDeletes": [{"id": S, "from": 1}]          "sectionInserts": [{"id": S, "at": 1}]
//   "sectionMoves":   [{"id": S, "from": 0, "to": 2}] "sectionReloads": [{"id": S, "at": 0}]
//   "itemDeletes":    [{"id": I, "from": [1, 4]}]     "itemInserts":    [{"item": {…}, "at": [1, 0]}]
//   "itemMoves":      [{"id": I, "from": [1, 4], "to": [0, 2]}]
//   "itemUpdates":    [{"item": {…}, "at": [1, 3]}]
// Index paths are [section, item]. The meaning of each position is documented on `Changeset`.

extension Changeset: Codable where SectionID: Codable, Item: Codable, Item.ID: Codable {
    private enum CodingKeys: String, CodingKey {
        case sectionDeletes, sectionInserts, sectionMoves, sectionReloads
        case itemDeletes, itemInserts, itemMoves, itemUpdates
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func decode<T: Decodable>(_ key: CodingKeys) throws -> [T] {
            try container.decodeIfPresent([T].self, forKey: key) ?? []
        }
        self.init()
        sectionDeletes = try decode(.sectionDeletes)
        sectionInserts = try decode(.sectionInserts)
        sectionMoves = try decode(.sectionMoves)
        sectionReloads = try decode(.sectionReloads)
        itemDeletes = try decode(.itemDeletes)
        itemInserts = try decode(.itemInserts)
        itemMoves = try decode(.itemMoves)
        itemUpdates = try decode(.itemUpdates)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        func encode<T: Encodable>(_ values: [T], _ key: CodingKeys) throws {
            if !values.isEmpty { try container.encode(values, forKey: key) }
        }
        try encode(sectionDeletes, .sectionDeletes)
        try encode(sectionInserts, .sectionInserts)
        try encode(sectionMoves, .sectionMoves)
        try encode(sectionReloads, .sectionReloads)
        try encode(itemDeletes, .itemDeletes)
        try encode(itemInserts, .itemInserts)
        try encode(itemMoves, .itemMoves)
        try encode(itemUpdates, .itemUpdates)
    }
}
