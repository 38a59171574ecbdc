import Foundation
import Testing

/// Every log line goes through the catalogue: a call that names its own level and text (`logger.info("…")`) would
/// add to the monitoring contract without the catalogue, the docs' table or this test knowing.
@Suite struct LogCallSiteTests {
    @Test func noSourceLogsALiteralMessage() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
        let pattern = try NSRegularExpression(
            pattern: #"logger\.(trace|debug|info|notice|warning|error|critical)\(|\.log\(level:"#
        )
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        var checked = 0
        for case let url as URL in files where url.pathExtension == "swift" {
            guard !url.path.contains("/Sources/MonitoringLog/") else { continue }
            let text = try String(contentsOf: url, encoding: .utf8)
            checked += 1
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let line = String(line)
                let range = NSRange(line.startIndex..., in: line)
                if pattern.firstMatch(in: line, range: range) != nil {
                    Issue.record("\(url.lastPathComponent):\(number + 1) logs without the catalogue: \(line)")
                }
            }
        }
        #expect(checked > 100, "the sources were found")
    }
}
