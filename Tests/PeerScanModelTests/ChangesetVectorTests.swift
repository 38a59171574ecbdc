// Swift's side of the shared changeset vectors (Tests/Vectors/changesets.json, made by ChangesetVectorCatalogue):
// the committed file is what the catalogue makes today, and `Snapshot.applying(_:)` on each vector's wire JSON gives
// its `after` or rejects it. testclient/applier.py and the page's applier.js are held to the same file by
// Tests/Page/test_changeset_vectors.py. PEERSCAN_WRITE_VECTORS=1 rewrites the file instead of comparing.

import Diffable
import Foundation
import PeerScanModel
import Testing

@Suite struct ChangesetVectorTests {
    private static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Vectors/changesets.json")

    /// One vector, decoded with the items its `model` names.
    private struct Vector: Decodable {
        struct Case<SectionID: Codable & Hashable & Sendable, Item: Codable & Identifiable & Equatable>: Decodable
        where Item.ID: Codable & Sendable {
            var before: Snapshot<SectionID, Item>
            var changes: Changeset<SectionID, Item>
            var after: Snapshot<SectionID, Item>?
            var error: Bool?

            /// Why the vector does not hold, or nil.
            func failure() -> String? {
                do {
                    let result = try before.applying(changes)
                    if error == true { return "applied a malformed changeset: \(result)" }
                    return result == after ? nil : "applying gave \(result), not \(String(describing: after))"
                } catch {
                    return self.error == true ? nil : "rejected: \(error)"
                }
            }
        }

        enum Body {
            case peerscan(Case<ScanSection, ScanItem>)
            case generic(Case<String, VectorItem>)
        }

        var name: String
        var body: Body

        private enum CodingKeys: String, CodingKey { case name, model }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            switch try container.decode(String.self, forKey: .model) {
            case "peerscan": body = .peerscan(try Case(from: decoder))
            case "generic": body = .generic(try Case(from: decoder))
            case let other:
                throw DecodingError.dataCorruptedError(
                    forKey: .model,
                    in: container,
                    debugDescription: "model \(other)"
                )
            }
        }

        func failure() -> String? {
            switch body {
            case .peerscan(let vector): vector.failure()
            case .generic(let vector): vector.failure()
            }
        }

        var isMalformed: Bool {
            switch body {
            case .peerscan(let vector): vector.error == true
            case .generic(let vector): vector.error == true
            }
        }
    }

    private static func committedVectors() throws -> [Vector] {
        try JSONDecoder().decode([Vector].self, from: Data(contentsOf: file))
    }

    @Test func committedFileIsTheCataloguesOutput() throws {
        let text = try ChangesetVectorCatalogue.fileText()
        if ProcessInfo.processInfo.environment["PEERSCAN_WRITE_VECTORS"] == "1" {
            try FileManager.default.createDirectory(
                at: Self.file.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try Data(text.utf8).write(to: Self.file)
        }
        let committed = try String(contentsOf: Self.file, encoding: .utf8).split(separator: "\n")
        let generated = text.split(separator: "\n")
        // The first line that differs (not the whole file, 350 kB, in the failure).
        let difference = zip(committed, generated).first { $0 != $1 }.map { "\($0.0.prefix(300))" }
        let isSame = committed == generated
        #expect(
            isSame,
            """
            Tests/Vectors/changesets.json is not the catalogue's output (PEERSCAN_WRITE_VECTORS=1 rewrites it); \
            \(committed.count) lines, \(generated.count) made; first differing line: \(difference ?? "none")
            """
        )
    }

    @Test func everyVectorReplaysOrIsRejected() throws {
        let vectors = try Self.committedVectors()
        for vector in vectors {
            let failure = vector.failure()
            #expect(failure == nil, "\(vector.name): \(failure ?? "")")
        }
    }

    /// The file covers what it promises: ≥ 50 random cases, malformed ones, names unique.
    @Test func vectorsCoverTheCases() throws {
        let vectors = try Self.committedVectors()
        #expect(Set(vectors.map(\.name)).count == vectors.count)
        #expect(vectors.filter { $0.name.hasPrefix("random ") }.count >= 50)
        #expect(vectors.filter(\.isMalformed).count >= 10)
        #expect(vectors.contains { $0.name == "peerscan: scanning switched off removes networks" })
    }
}
