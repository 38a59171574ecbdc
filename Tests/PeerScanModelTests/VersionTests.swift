// The version has one source: the first entry of debian/changelog, which the Debian package takes its version from.
// PeerScanVersion.current (what `--version` prints and GetInfo replies) must be the same string; bump both together
// (`dch -v NEW` then PeerScanVersion.swift). The package's build checks the binaries again (scripts/check-version).

import Foundation
import PeerScanModel
import Testing

@Suite struct VersionTests {
    /// The version of debian/changelog's first entry: "peerscan (VERSION) DISTRIBUTION; urgency=...".
    private static func changelogVersion() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let changelog = try String(contentsOf: root.appendingPathComponent("debian/changelog"), encoding: .utf8)
        let firstLine = try #require(changelog.split(separator: "\n").first)
        let open = try #require(firstLine.firstIndex(of: "("), "no version in \(firstLine)")
        let close = try #require(firstLine.firstIndex(of: ")"), "no version in \(firstLine)")
        #expect(firstLine.hasPrefix("peerscan "), "debian/changelog names another package: \(firstLine)")
        return String(firstLine[firstLine.index(after: open)..<close])
    }

    @Test func currentIsTheChangelogsVersion() throws {
        #expect(PeerScanVersion.current == (try Self.changelogVersion()))
    }

    /// A native package has no Debian revision, so the package's version is the program's, unchanged.
    @Test func changelogVersionHasNoDebianRevision() throws {
        #expect(!(try Self.changelogVersion()).contains("-"))
    }
}
