internal import POSIXText

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One of the IEEE's assignment files as `ieee-data` installs them: its name, the type of assignment its rows must
/// name in their `Registry` column (`MA-S`, `IAB`, `MA-M`, `MA-L`), and its prefix length.
struct AssignmentFile: Sendable {
    var name: String
    var assignmentType: String
    var hexDigits: Int

    var prefixLength: Int { hexDigits * 4 }

    /// The files in lookup order; within one prefix length, the first file's row wins.
    static let all = [
        AssignmentFile(name: "oui36.csv", assignmentType: "MA-S", hexDigits: 9),
        AssignmentFile(name: "iab.csv", assignmentType: "IAB", hexDigits: 9),
        AssignmentFile(name: "mam.csv", assignmentType: "MA-M", hexDigits: 7),
        AssignmentFile(name: "oui.csv", assignmentType: "MA-L", hexDigits: 6),
    ]

    /// The organization that stands for a block subdivided into smaller assignments, in `MA-L` rows.
    static let placeholderOrganization = "IEEE Registration Authority"

    /// Reads and checks the file in `directory`: each record's prefix and trimmed organization, in file order,
    /// without the placeholder rows of a subdivided block.
    ///
    /// - Complexity: O(*n*), where *n* is the file's size.
    func entries(in directory: String) throws(MACVendorDatabaseError) -> [(prefix: UInt64, organization: String)] {
        let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
        let bytes = try readContents(of: path)
        var reader = CSVRecordReader(bytes)
        func nextRecord() throws(MACVendorDatabaseError) -> (line: Int, fields: [CSVField])? {
            do throws(CSVSyntaxError) {
                return try reader.next()
            } catch {
                throw MACVendorDatabaseError(.malformedCSV, path: path, line: error.line, detail: error.reason)
            }
        }
        let header = try nextRecord()?.fields.map { trimmingWhitespace($0.text(in: bytes)) } ?? []
        guard header.starts(with: ["Registry", "Assignment", "Organization Name"]) else {
            let found = header.isEmpty ? "an empty file" : header.joined(separator: ",")
            throw MACVendorDatabaseError(
                .malformedHeader,
                path: path,
                line: 1,
                detail: "expected Registry,Assignment,Organization Name,…, found \(found)"
            )
        }
        var entries: [(prefix: UInt64, organization: String)] = []
        while let (line, fields) = try nextRecord() {
            func malformed(_ detail: String) -> MACVendorDatabaseError {
                MACVendorDatabaseError(.malformedRecord, path: path, line: line, detail: detail)
            }
            guard fields.count == header.count else {
                throw malformed("\(fields.count) fields where the header has \(header.count)")
            }
            let type = fields[0].text(in: bytes)
            guard type == assignmentType else { throw malformed("Registry column \"\(type)\", not \(assignmentType)") }
            guard let prefix = hexValue(bytes[fields[1].range]) else {
                throw malformed("assignment \"\(fields[1].text(in: bytes))\" is not \(hexDigits) hex digits")
            }
            let organization = trimmingWhitespace(fields[2].text(in: bytes))
            guard !organization.isEmpty else { throw malformed("empty organization name") }
            if hexDigits == 6, organization == Self.placeholderOrganization { continue }
            entries.append((prefix, organization))
        }
        return entries
    }

    /// The value of exactly ``hexDigits`` hex digits, or nil.
    private func hexValue(_ digits: ArraySlice<UInt8>) -> UInt64? {
        guard digits.count == hexDigits else { return nil }
        var value: UInt64 = 0
        for byte in digits {
            guard let digit = hexDigitValue(byte) else { return nil }
            value = value << 4 | UInt64(digit)
        }
        return value
    }
}

extension MACVendorDatabase {
    /// Throws unless `directory` exists and is a directory that can be opened.
    static func checkDirectory(_ directory: String) throws(MACVendorDatabaseError) {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw systemError(path: directory) }
        close(descriptor)
    }
}

/// `string` without leading and trailing whitespace (Unicode's: spaces, tabs, no-break and other wide spaces).
///
/// - Complexity: O(*n*), where *n* is the length of `string`; no copy when there is nothing to trim.
func trimmingWhitespace(_ string: String) -> String {
    let scalars = string.unicodeScalars
    guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
        let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
    else { return "" }
    if first == scalars.startIndex, scalars.index(after: last) == scalars.endIndex { return string }
    return String(scalars[first...last])
}

/// The whole content of the file at `path`.
///
/// - Complexity: O(*n*), where *n* is the file's size.
private func readContents(of path: String) throws(MACVendorDatabaseError) -> [UInt8] {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw systemError(path: path) }
    defer { close(descriptor) }
    var contents: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count == 0 { return contents }
        if count < 0 {
            if errno == EINTR { continue }
            throw systemError(path: path)
        }
        contents.append(contentsOf: chunk[..<count])
    }
}

/// The error for the failed system call on `path` that set `errno`: ``MACVendorDatabaseErrorCode/notFound`` for
/// ENOENT, ``MACVendorDatabaseErrorCode/unreadable`` otherwise, with the system's text.
private func systemError(path: String) -> MACVendorDatabaseError {
    let code = errno
    return MACVendorDatabaseError(
        code == ENOENT ? .notFound : .unreadable,
        path: path,
        detail: POSIXText.errorDescription(code)
    )
}
