import Foundation
import MACVendors
import TestSupport
import Testing

/// Writes assignment files (name to content) into `directory`.
private func write(_ files: [String: String], into directory: String) throws {
    for (name, content) in files {
        try Data(content.utf8).write(to: URL(fileURLWithPath: directory + "/" + name))
    }
}

private let header = "Registry,Assignment,Organization Name,Organization Address\r\n"

/// A small set of assignments: a 24-bit block subdivided by a 28-bit and a 36-bit assignment, a placeholder block with
/// one IAB sub-block, quoting, line breaks inside quotes, CRLF, whitespace to trim, and rows with the group and local
/// bits.
private let fixture = [
    "oui.csv": header
        + "MA-L,70B3D5,Big Block Corp,1 Road\r\n"
        + "MA-L,0050C2,IEEE Registration Authority,445 Hoes Lane Piscataway NJ US 08854 \r\n"
        + "MA-L,00000C,\"Cisco Systems, Inc\",\"170 West Tasman Drive\nSan Jose CA US 95134 \"\r\n"
        + "MA-L,001EFC,\"JSC \"\"MASSA-K\"\"\",Saint-Petersburg RU\r\n"
        + "MA-L,001122,\u{A0}Spaced Out Ltd.\t,\r\n"
        + "MA-L,080030,First Holder,\r\n"
        + "MA-L,080030,Second Holder,\r\n"
        + "MA-L,01AA00,Group Bit Co.,\r\n"
        + "MA-L,02AA00,Local Bit Co.,\r\n",
    "mam.csv": header + "MA-M,70B3D5A,Medium Co,\"2 Road, Unit 3\"\r\n",
    "oui36.csv": header + "MA-S,70B3D5F2F,Small Co,3 Road\r\n",
    "iab.csv": header + "IAB,0050C27D5,DEUTA-WERKE GmbH,Paffrather Strasse 140\n",
]

/// Runs `body` with a database loaded from `files` written into a temporary directory.
private func withDatabase(
    _ files: [String: String] = fixture,
    _ body: (MACVendorDatabase) throws -> Void
) async throws {
    try await withTemporaryDirectory { directory in
        try write(files, into: directory)
        try body(try MACVendorDatabase(directory: directory))
    }
}

@Suite struct MACVendorDatabaseTests {
    @Test(arguments: [
        ("70:b3:d5:f2:f0:01", "Small Co"),
        ("70:b3:d5:f2:ff:ff", "Small Co"),
        ("70:b3:d5:f3:00:00", "Big Block Corp"),
        ("70:b3:d5:a0:00:00", "Medium Co"),
        ("70:b3:d5:af:ff:ff", "Medium Co"),
        ("70:b3:d5:00:00:00", "Big Block Corp"),
        ("00:50:c2:7d:50:00", "DEUTA-WERKE GmbH"),
    ])
    func longestPrefixWins(mac: String, vendor: String) async throws {
        try await withDatabase { database in #expect(database.vendor(for: mac) == vendor) }
    }

    @Test func placeholderOfASubdividedBlockIsNoVendor() async throws {
        try await withDatabase { database in
            #expect(database.vendor(for: "00:50:c2:00:00:01") == nil)
            #expect(database.count(prefixLength: 24) == 7)
        }
    }

    @Test func quotedFieldsAreUnescapedAndNamesTrimmed() async throws {
        try await withDatabase { database in
            #expect(database.vendor(for: "00:00:0c:01:02:03") == "Cisco Systems, Inc")
            #expect(database.vendor(for: "00:1e:fc:01:02:03") == "JSC \"MASSA-K\"")
            #expect(database.vendor(for: "00:11:22:33:44:55") == "Spaced Out Ltd.")
        }
    }

    @Test func firstRowOfADuplicatedPrefixWins() async throws {
        try await withDatabase { database in #expect(database.vendor(for: "08:00:30:00:00:01") == "First Holder") }
    }

    @Test(arguments: ["70:B3:D5:F2:F0:01", "70-b3-d5-f2-f0-01", "70-B3-d5-F2-f0-01"])
    func separatorsAndCase(mac: String) async throws {
        try await withDatabase { database in #expect(database.vendor(for: mac) == "Small Co") }
    }

    @Test(arguments: [
        "02:aa:00:00:00:01",  // locally administered, though a row lists the prefix
        "72:b3:d5:f2:f0:01",  // 70:b3:d5 with the local bit
        "01:aa:00:00:00:01",  // multicast, though a row lists the prefix
        "ff:ff:ff:ff:ff:ff",  // broadcast
        "00:00:00:00:00:00",  // the null address of an incomplete or point-to-point neighbour
        "00:00:0d:00:00:00",  // unknown prefix
        "70:b3:d5:f2:f0",  // too short
        "70:b3:d5:f2:f0:01:02",  // too long
        "70:b3-d5:f2:f0:01",  // mixed separators
        "70.b3.d5.f2.f0.01",  // other separator
        "70:b3:d5:f2:g0:01",  // not hex
        "70b3d5f2f001",  // no separators
        "",
    ])
    func noVendor(mac: String) async throws {
        try await withDatabase { database in #expect(database.vendor(for: mac) == nil) }
    }

    @Test func addressBits() {
        #expect(MACVendorDatabase.isLocallyAdministered("02:00:00:00:00:00"))
        #expect(MACVendorDatabase.isLocallyAdministered("DA:A1:19:00:00:01"))
        #expect(MACVendorDatabase.isLocallyAdministered("03:00:00:00:00:00"))
        #expect(!MACVendorDatabase.isLocallyAdministered("00:00:0c:00:00:00"))
        #expect(!MACVendorDatabase.isLocallyAdministered("01:00:5e:00:00:fb"))
        #expect(!MACVendorDatabase.isLocallyAdministered("not a mac address"))
        #expect(MACVendorDatabase.isMulticast("01-00-5E-00-00-FB"))
        #expect(MACVendorDatabase.isMulticast("33:33:00:00:00:01"))
        #expect(!MACVendorDatabase.isMulticast("02:00:00:00:00:00"))
    }

    @Test func counts() async throws {
        try await withDatabase { database in
            #expect(database.count(prefixLength: 36) == 2)
            #expect(database.count(prefixLength: 28) == 1)
            #expect(database.count(prefixLength: 24) == 7)
            #expect(database.count(prefixLength: 12) == 0)
            #expect(database.count == 10)
            #expect(MACVendorDatabase.empty.count == 0)
        }
    }

    /// Malformed content: the file, the error's code, and the line named (a record's first line).
    @Test(arguments: [
        ("Registry,Assignment\r\n", MACVendorDatabaseError.Code.malformedHeader, 1),
        ("", .malformedHeader, 1),
        (header + "MA-L,00000C,Cisco\r\n", .malformedRecord, 2),
        (header + "MA-L,00000C,A,B,C\r\n", .malformedRecord, 2),
        (header + "MA-L,\"x\",\"two\nlines\",\r\nMA-L,00000G,Bad Hex,\r\n", .malformedRecord, 2),
        (header + "MA-L,000001,\"two\nlines\",\r\nMA-L,00000G,Bad Hex,\r\n", .malformedRecord, 4),
        (header + "MA-L,000001,A,\r\nMA-L,0000001,Too Long,\r\n", .malformedRecord, 3),
        (header + "MA-M,000001,Other Registry,\r\n", .malformedRecord, 2),
        (header + "MA-L,000001,  ,\r\n", .malformedRecord, 2),
        (header + "MA-L,000001,A,\r\nMA-L,000002,\"open,\r\n", .malformedCSV, 3),
        (header + "MA-L,000001,\"A\"B,\r\n", .malformedCSV, 2),
    ])
    func malformedContentNamesFileAndLine(
        content: String,
        code: MACVendorDatabaseError.Code,
        line: Int
    ) async throws {
        try await withTemporaryDirectory { directory in
            var files = fixture
            files["oui.csv"] = content
            try write(files, into: directory)
            let error = #expect(throws: MACVendorDatabaseError.self) { try MACVendorDatabase(directory: directory) }
            #expect(error?.code == code)
            #expect(error?.path == directory + "/oui.csv")
            #expect(error?.line == line)
            #expect(error?.description.hasPrefix("\(directory)/oui.csv:\(line): ") == true)
        }
    }

    @Test func missingFileThrowsNotFound() async throws {
        try await withTemporaryDirectory { directory in
            var files = fixture
            files["mam.csv"] = nil
            try write(files, into: directory)
            let error = #expect(throws: MACVendorDatabaseError.self) { try MACVendorDatabase(directory: directory) }
            #expect(error?.code == .notFound)
            #expect(error?.path == directory + "/mam.csv")
            #expect(error?.line == nil)
        }
    }

    @Test func loadKeepsWhatItCan() async throws {
        try await withTemporaryDirectory { directory in
            var files = fixture
            files["mam.csv"] = nil
            files["iab.csv"] = header + "IAB,0050C27D,Short,\r\n"
            try write(files, into: directory)
            let (database, problems) = MACVendorDatabase.load(directory: directory)
            #expect(problems.map(\.code) == [.malformedRecord, .notFound])
            #expect(problems.map(\.path) == [directory + "/iab.csv", directory + "/mam.csv"])
            #expect(database.vendor(for: "70:b3:d5:f2:f0:01") == "Small Co")
            #expect(database.vendor(for: "70:b3:d5:a0:00:00") == "Big Block Corp")
            #expect(database.vendor(for: "00:50:c2:7d:50:00") == nil)
            #expect(database.count == 8)
        }
    }

    @Test func loadWithoutTheDirectoryIsOneProblem() {
        let (database, problems) = MACVendorDatabase.load(directory: "/nonexistent/ieee-data")
        #expect(database.count == 0)
        #expect(problems.count == 1)
        #expect(problems.first?.code == .notFound)
        #expect(problems.first?.description == "/nonexistent/ieee-data: not found: No such file or directory")
    }

    @Test func aFileForTheDirectoryIsUnreadable() async throws {
        try await withTemporaryDirectory { directory in
            try write(["oui.csv": header], into: directory)
            let (_, problems) = MACVendorDatabase.load(directory: directory + "/oui.csv")
            #expect(problems.map(\.code) == [.unreadable])
            #expect(problems.first?.description == directory + "/oui.csv: unreadable: Not a directory")
        }
    }
}

/// Against Debian's `ieee-data` as installed (`apt-get install ieee-data`).
@Suite(
    .enabled(
        if: FileManager.default.fileExists(atPath: MACVendorDatabase.defaultDirectory + "/oui.csv"),
        "Debian's ieee-data is not installed: no /usr/share/ieee-data/oui.csv"
    )
)
struct InstalledIEEEDataTests {
    @Test func knownAssignments() throws {
        let database = try MACVendorDatabase()
        #expect(database.vendor(for: "00:00:0c:12:34:56") == "Cisco Systems, Inc")
        #expect(database.vendor(for: "20:85:93:b0:00:01") == "IOG Products LLC")  // MA-M 20-85-93-B
        #expect(database.vendor(for: "70:B3:D5:F2:F0:00") == "TELEPLATFORMS")  // MA-S 70-B3-D5-F2-F
        #expect(database.vendor(for: "00-50-C2-7D-50-00") == "DEUTA-WERKE GmbH")  // IAB 00-50-C2-7D-5
        #expect(database.vendor(for: "02:00:0c:12:34:56") == nil)
        #expect(database.count(prefixLength: 24) > 30000)
        #expect(database.count(prefixLength: 28) > 4000)
        #expect(database.count(prefixLength: 36) > 9000)
        let (loaded, problems) = MACVendorDatabase.load()
        #expect(problems.isEmpty)
        #expect(loaded.count == database.count)
    }
}
