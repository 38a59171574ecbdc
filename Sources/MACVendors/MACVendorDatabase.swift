/// The organization behind a MAC address, from the IEEE's MAC address block assignments as Debian's `ieee-data`
/// package installs them.
///
/// A database is loaded from a directory holding the assignment files `oui36.csv` (MA-S, 36-bit prefixes), `iab.csv`
/// (IAB, 36-bit), `mam.csv` (MA-M, 28-bit) and `oui.csv` (MA-L, 24-bit); see ``init(directory:)`` for what is
/// kept of them and ``load(directory:)`` for a daemon that must go on without some. A lookup tries the longest
/// prefix first, so a block that the IEEE subdivided answers with the organization of the sub-block.
///
/// Organization names are kept as the IEEE writes them (case included), trimmed of leading and trailing
/// whitespace (the files have trailing spaces and tabs, and leading no-break spaces).
///
/// ## Performance
/// Loading reads, splits and checks all four files (about 46,500 records, 3.7 MB) in one pass each: about 50 ms in a
/// release build, ten times that in a debug build. The database then holds about 46,200 prefixes in about 2.6 MB of
/// heap: each distinct name (about 29,600) once, in one buffer of UTF-8 (``OrganizationNames``), and the tables map a
/// prefix to a name's number. (With a `String` per name it was 3.9 MB in ~30,000 small blocks, spread among the load's
/// freed ones, so that peerscand's heap kept ~9 MiB resident after loading; a few large blocks leave nothing behind:
/// docs/benchmarks.md#memory.) A lookup parses the address, makes at most three hash lookups, one per prefix length,
/// and makes the name's `String`: O(1), about 0.2 µs in release.
public struct MACVendorDatabase: Sendable {
    /// Where Debian's `ieee-data` package installs the assignment files.
    public static let defaultDirectory = "/usr/share/ieee-data"

    /// A database that knows no prefix.
    public static let empty = MACVendorDatabase(
        tables: Array(repeating: [:], count: prefixLengths.count),
        names: OrganizationNames()
    )

    /// The prefix lengths in bits, longest first: the order of `tables` and of a lookup.
    static let prefixLengths = [36, 28, 24]

    /// For each of ``prefixLengths``, the organization's number in `names` by prefix value (the address shifted right
    /// by 48 - length).
    private var tables: [[UInt64: Int32]]
    /// Every distinct organization name, numbered.
    private var names: OrganizationNames

    private init(tables: [[UInt64: Int32]], names: OrganizationNames) {
        self.tables = tables
        self.names = names
    }

    /// Loads every assignment file in `directory`, and throws on the first one that is missing or malformed.
    ///
    /// What is kept: a record's assignment type (its `Registry` column: `MA-S`, `IAB`, `MA-M`, `MA-L`), its
    /// assignment (the prefix, 9, 7 or 6 hex digits) and its organization name, trimmed; addresses are skipped. Left
    /// out: the `MA-L` rows whose organization is `IEEE Registration Authority`, which stand for blocks subdivided into
    /// MA-M, MA-S and IAB assignments (an address in such a block that no sub-block covers has no known vendor, rather
    /// than the IEEE's name). Where a prefix appears twice (the old `08:00:30` and `00:01:C8`), the first row wins.
    ///
    /// - Parameter directory: The directory holding the assignment files; ``defaultDirectory`` unless told.
    /// - Throws: ``MACVendorDatabaseError`` naming the directory or file and, for bad content, the record's line.
    /// - Complexity: O(*n*), where *n* is the files' total size.
    public init(directory: String = defaultDirectory) throws(MACVendorDatabaseError) {
        try Self.checkDirectory(directory)
        var database = Self.empty
        var numbers: [String: Int32] = [:]
        for file in AssignmentFile.all {
            database.add(try file.entries(in: directory), prefixLength: file.prefixLength, numbers: &numbers)
        }
        self = database
    }

    /// Loads what can be loaded from `directory`, and says what could not.
    ///
    /// For the daemon, to which vendors are a nicety: it logs the problems (one line each, or joined in one line) and
    /// goes on with what it has. A missing directory (`ieee-data` not installed) is one problem and an empty
    /// database; a file that is missing or malformed is one problem and is left out whole, the other files kept.
    /// What is kept of each file is as in ``init(directory:)``.
    ///
    /// - Parameter directory: The directory holding the assignment files; ``defaultDirectory`` unless told.
    /// - Returns: The database of the files that loaded, and an error for each directory or file that did not.
    /// - Complexity: O(*n*), where *n* is the files' total size.
    public static func load(
        directory: String = defaultDirectory
    ) -> (database: MACVendorDatabase, problems: [MACVendorDatabaseError]) {
        do throws(MACVendorDatabaseError) {
            try checkDirectory(directory)
        } catch {
            return (empty, [error])
        }
        var database = empty
        var problems: [MACVendorDatabaseError] = []
        var numbers: [String: Int32] = [:]
        for file in AssignmentFile.all {
            do throws(MACVendorDatabaseError) {
                database.add(try file.entries(in: directory), prefixLength: file.prefixLength, numbers: &numbers)
            } catch {
                problems.append(error)
            }
        }
        return (database, problems)
    }

    /// The organization that the IEEE assigned the address's block to, trying 36-, then 28-, then 24-bit prefixes.
    ///
    /// - Parameter mac: An address written `aa:bb:cc:dd:ee:ff` or `aa-bb-cc-dd-ee-ff`, in either case.
    /// - Returns: The organization's name; nil for an address not written that way, a locally administered address
    ///   (randomized, private), a multicast address, the all-zero address, or a prefix the IEEE does not list.
    /// - Complexity: O(1).
    public func vendor(for mac: String) -> String? {
        guard let address = MACAddress(mac), !address.isLocallyAdministered, !address.isMulticast,
            address.value != 0
        else { return nil }
        for (length, table) in zip(Self.prefixLengths, tables) {
            if let number = table[address.value >> UInt64(48 - length)] { return names[number] }
        }
        return nil
    }

    /// Whether the address is locally administered (bit 0x02 of the first octet): assigned by software, not by a
    /// vendor, as randomized "private" Wi-Fi addresses are.
    ///
    /// - Parameter mac: An address written `aa:bb:cc:dd:ee:ff` or `aa-bb-cc-dd-ee-ff`, in either case.
    /// - Returns: Whether the bit is set; false for a string that is not such an address.
    /// - Complexity: O(1).
    public static func isLocallyAdministered(_ mac: String) -> Bool {
        MACAddress(mac)?.isLocallyAdministered ?? false
    }

    /// Whether the address is a group (multicast or broadcast) address (bit 0x01 of the first octet).
    ///
    /// - Parameter mac: An address written `aa:bb:cc:dd:ee:ff` or `aa-bb-cc-dd-ee-ff`, in either case.
    /// - Returns: Whether the bit is set; false for a string that is not such an address.
    /// - Complexity: O(1).
    public static func isMulticast(_ mac: String) -> Bool {
        MACAddress(mac)?.isMulticast ?? false
    }

    /// The number of prefixes known, of all lengths.
    ///
    /// - Complexity: O(1).
    public var count: Int {
        tables.reduce(0) { $0 + $1.count }
    }

    /// The number of prefixes known of one length.
    ///
    /// - Parameter prefixLength: 24, 28 or 36 (bits).
    /// - Returns: How many prefixes of that length are known; 0 for any other length.
    /// - Complexity: O(1).
    public func count(prefixLength: Int) -> Int {
        Self.prefixLengths.firstIndex(of: prefixLength).map { tables[$0].count } ?? 0
    }

    /// Adds entries of one prefix length, keeping a prefix's first organization; equal names are stored once
    /// (`numbers` numbers the names stored so far).
    private mutating func add(
        _ entries: [(prefix: UInt64, organization: String)],
        prefixLength: Int,
        numbers: inout [String: Int32]
    ) {
        let index = Self.prefixLengths.firstIndex(of: prefixLength)!
        tables[index].reserveCapacity(tables[index].count + entries.count)
        for (prefix, organization) in entries where tables[index][prefix] == nil {
            let number: Int32
            if let known = numbers[organization] {
                number = known
            } else {
                number = names.append(organization)
                numbers[organization] = number
            }
            tables[index][prefix] = number
        }
    }
}

/// Organization names, numbered in the order appended, in one buffer of UTF-8: two large blocks for all of them,
/// where a `String` each would be a small block each (a name longer than 15 bytes has storage of its own).
struct OrganizationNames: Sendable {
    private var utf8: [UInt8] = []
    /// Where each name ends in `utf8`; a name starts where the one before it ends.
    private var ends: [UInt32] = []

    /// Stores `name` and returns its number.
    ///
    /// - Complexity: O(*n*), where *n* is the name's length in UTF-8 (amortized).
    mutating func append(_ name: String) -> Int32 {
        utf8.append(contentsOf: name.utf8)
        ends.append(UInt32(utf8.count))
        return Int32(ends.count - 1)
    }

    /// The name numbered `number`, which ``append(_:)`` returned.
    ///
    /// - Complexity: O(*n*), where *n* is the name's length in UTF-8.
    subscript(number: Int32) -> String {
        let end = Int(ends[Int(number)])
        let start = number == 0 ? 0 : Int(ends[Int(number) - 1])
        return String(decoding: utf8[start..<end], as: UTF8.self)
    }
}
