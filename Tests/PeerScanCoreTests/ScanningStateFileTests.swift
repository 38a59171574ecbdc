// The scanning switch kept across restarts: a file holding `on` or `off`.

import Foundation
import PeerScanModel
import TestSupport
import Testing

@testable import PeerScanCore

@Suite struct ScanningStateFileTests {
    @Test func isNilBeforeAnythingIsSaved() async throws {
        try await withTemporaryDirectory { directory in
            let file = ScanningStateFile(directory: directory + "/not/yet/created")
            let loaded = try file.load()
            #expect(loaded == nil)
        }
    }

    @Test func liesInTheDirectoryUnderTheNameScanning() {
        #expect(ScanningStateFile(directory: "/var/lib/peerscan").path == "/var/lib/peerscan/scanning")
    }

    @Test func savesAndLoadsBothStatesCreatingTheDirectory() async throws {
        try await withTemporaryDirectory { directory in
            let file = ScanningStateFile(directory: directory + "/state")
            try file.save(false)
            #expect(try file.load() == false)
            #expect(try String(contentsOfFile: file.path, encoding: .utf8) == "off\n")
            try file.save(true)
            #expect(try file.load() == true)
            #expect(try String(contentsOfFile: file.path, encoding: .utf8) == "on\n")
        }
    }

    @Test(arguments: [("on", true), ("  off \n\n", false), ("\ton\r\n", true)])
    func toleratesSurroundingWhitespace(content: String, isScanning: Bool) async throws {
        try await withTemporaryDirectory { directory in
            let file = ScanningStateFile(directory: directory)
            try content.write(toFile: file.path, atomically: true, encoding: .utf8)
            #expect(try file.load() == isScanning)
        }
    }

    @Test(arguments: ["maybe\n", "ON", "", "on\noff\n", String(repeating: "x", count: 10_000)])
    func loadingSomethingElseThanOnOrOffThrowsAnErrorNamingTheFile(content: String) async throws {
        try await withTemporaryDirectory { directory in
            let file = ScanningStateFile(directory: directory)
            try content.write(toFile: file.path, atomically: true, encoding: .utf8)
            let error = try #require(throws: StateFileError.self) { try file.load() }
            #expect(error.path == file.path)
            #expect(error.description.contains(file.path))
            #expect(error.description.count < file.path.count + 100, "quotes at most a short prefix")
        }
    }

    @Test func loadingAFileThatCannotBeReadThrows() async throws {
        try await withTemporaryDirectory { directory in
            let file = ScanningStateFile(directory: directory)
            try FileManager.default.createDirectory(atPath: file.path, withIntermediateDirectories: false)
            let error = try #require(throws: StateFileError.self) { try file.load() }
            #expect(error.path == file.path)
        }
    }

    @Test func savingWhereTheDirectoryCannotBeCreatedThrowsAnErrorNamingTheFile() async throws {
        try await withTemporaryDirectory { directory in
            let regularFile = directory + "/plain"
            try "".write(toFile: regularFile, atomically: true, encoding: .utf8)
            let file = ScanningStateFile(directory: regularFile + "/state")
            let error = try #require(throws: StateFileError.self) { try file.save(true) }
            #expect(error.path == file.path)
            #expect(error.description.hasPrefix("state file \(file.path): cannot write"))
            #expect(try file.load() == nil)
        }
    }
}
