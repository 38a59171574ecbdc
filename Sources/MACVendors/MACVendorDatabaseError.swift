/// Why an IEEE assignment file, or the directory holding them, could not be loaded into a ``MACVendorDatabase``.
///
/// Every error names the path it is about and, for what is wrong inside a file, the line of the offending record
/// (the line it starts on: a quoted field may span lines).
public struct MACVendorDatabaseError: Error, Hashable, Sendable {
    /// What went wrong. New codes may be added; switch over them with a `default` case.
    public typealias Code = MACVendorDatabaseErrorCode

    /// What went wrong.
    public var code: Code
    /// The file or directory concerned.
    public var path: String
    /// The 1-based line of the offending record, when the error is about a file's content.
    public var line: Int?
    /// What was found, in words: the system's error text, or what is wrong with the record.
    public var detail: String

    /// Creates an error about `path`, at `line` when the error is about the file's content.
    public init(_ code: Code, path: String, line: Int? = nil, detail: String) {
        self.code = code
        self.path = path
        self.line = line
        self.detail = detail
    }
}

extension MACVendorDatabaseError: CustomStringConvertible {
    /// `path:line: code: detail`, as compilers write it.
    public var description: String {
        let location = line.map { "\(path):\($0)" } ?? path
        return "\(location): \(code): \(detail)"
    }
}

/// What went wrong in a ``MACVendorDatabaseError``. New codes may be added; switch over them with a `default` case.
public struct MACVendorDatabaseErrorCode: Hashable, Sendable, CustomStringConvertible {
    fileprivate enum Base: Hashable, Sendable {
        case notFound, unreadable, malformedCSV, malformedHeader, malformedRecord
    }
    fileprivate var base: Base

    /// The directory or file does not exist (Debian's `ieee-data` is not installed, or lacks this file).
    public static let notFound = MACVendorDatabaseErrorCode(base: .notFound)
    /// The directory or file exists but could not be read (permissions, an I/O error, not a directory).
    public static let unreadable = MACVendorDatabaseErrorCode(base: .unreadable)
    /// The file is not valid CSV: a quote left open, or text after a closing quote.
    public static let malformedCSV = MACVendorDatabaseErrorCode(base: .malformedCSV)
    /// The first line is not `Registry,Assignment,Organization Name,…`.
    public static let malformedHeader = MACVendorDatabaseErrorCode(base: .malformedHeader)
    /// A record has the wrong number of fields, another file's assignment type, an assignment that is not the file's
    /// number of hex digits, or an empty organization name.
    public static let malformedRecord = MACVendorDatabaseErrorCode(base: .malformedRecord)

    public var description: String {
        switch base {
        case .notFound: "not found"
        case .unreadable: "unreadable"
        case .malformedCSV: "malformed CSV"
        case .malformedHeader: "malformed header"
        case .malformedRecord: "malformed record"
        }
    }
}
