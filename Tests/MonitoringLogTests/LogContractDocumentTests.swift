import Foundation
import Logging
import Testing

@testable import MonitoringLog

/// docs/operations.md's log table is the monitoring contract as operators read it: it must say what the catalogue
/// says. Every message logged at info or above has one row — at its highest level, with every key it may carry — and
/// every row is a message of the catalogue. (Debug lines are chatter, not contract.)
@Suite struct LogContractDocumentTests {
    struct Row: Equatable, CustomStringConvertible {
        var message: String
        var level: String
        var keys: Set<String>
        var description: String { "\(message) \(level) \(keys.sorted())" }
    }

    static func documentedRows() throws -> [Row] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("docs/operations.md"), encoding: .utf8)
        let section = try #require(text.components(separatedBy: "## The log messages").dropFirst().first)
        let body = try #require(section.components(separatedBy: "\n## ").first)
        return body.split(separator: "\n").compactMap { line -> Row? in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard cells.count >= 5, cells[1].hasPrefix("`") else { return nil }
            let keys = cells[3].split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            }
            return Row(
                message: cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`")),
                level: cells[2],
                keys: Set(keys.filter { !$0.isEmpty })
            )
        }
    }

    static func catalogueRows() -> [Row] {
        var rows: [String: Row] = [:]
        var order: [String] = []
        for message in LogMessage.catalogue {
            if var row = rows[message.text] {
                if message.level > Logger.Level(rawValue: row.level)! { row.level = message.level.rawValue }
                row.keys.formUnion(message.keys)
                rows[message.text] = row
            } else {
                rows[message.text] = Row(message: message.text, level: message.level.rawValue, keys: Set(message.keys))
                order.append(message.text)
            }
        }
        return order.compactMap { rows[$0] }.filter { Logger.Level(rawValue: $0.level)! >= .info }
    }

    @Test func theTableListsEveryMessageOfTheCatalogueAsItIs() throws {
        let documented = try Self.documentedRows()
        #expect(documented.count > 40, "the table was found and parsed")
        let catalogue = Self.catalogueRows()
        let byMessage = Dictionary(documented.map { ($0.message, $0) }, uniquingKeysWith: { first, _ in first })
        #expect(byMessage.count == documented.count, "a message has two rows")
        for row in catalogue {
            #expect(
                byMessage[row.message] == row,
                "docs/operations.md: \(byMessage[row.message].map { "\($0)" } ?? "no row") ≠ \(row)"
            )
        }
        let known = Set(catalogue.map(\.message))
        for row in documented where !known.contains(row.message) {
            Issue.record("docs/operations.md documents \(row.message), which the catalogue does not have")
        }
    }
}
