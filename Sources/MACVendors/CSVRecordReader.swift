// The IEEE assignment files' CSV, split by hand: RFC 4180 records over UTF-8 bytes.
//
// The project prefers a well-kept library to hand-written code, so both candidates were measured on the four real
// files (46,524 records, 3.7 MB) on this project's 2-core machine, idle, best of three: just splitting them into
// fields took SwiftCSV 0.10.0 about 415 ms and CSV.swift 2.5.2 about 183 ms in a release build (894 and 422 ms in a
// debug build), against a budget of 150 ms for the whole load. With this splitter the whole load (splitting,
// checking, trimming, the tables) takes 46 to 57 ms in release, 450 ms in debug. Neither library reports the line
// a record starts on either, which the load's errors must name.

/// A syntax error in CSV content: what is wrong, and the line of the record it is in.
struct CSVSyntaxError: Error {
    var line: Int
    var reason: String
}

/// One field of a record: where its bytes are (without the enclosing quotes) and whether it was quoted.
struct CSVField {
    var range: Range<Int>
    var isQuoted: Bool

    /// The field's text, with a quoted field's doubled quotes (`""`) undone.
    ///
    /// - Complexity: O(*n*), where *n* is the field's length in bytes.
    func text(in bytes: [UInt8]) -> String {
        let raw = bytes[range]
        guard isQuoted, raw.contains(UInt8(ascii: "\"")) else { return String(decoding: raw, as: UTF8.self) }
        var unescaped: [UInt8] = []
        unescaped.reserveCapacity(raw.count)
        var afterQuote = false
        for byte in raw {
            if byte == UInt8(ascii: "\""), afterQuote {
                afterQuote = false
                continue
            }
            afterQuote = byte == UInt8(ascii: "\"")
            unescaped.append(byte)
        }
        return String(decoding: unescaped, as: UTF8.self)
    }
}

/// Reads CSV records from UTF-8 bytes, one at a time.
///
/// Follows RFC 4180: fields are separated by commas, records by CRLF or LF; a quoted field may hold commas, line breaks
/// and doubled quotes. Leniencies: a quote inside an unquoted field is kept as a character, empty lines are skipped,
/// and the last record need not end with a line break. Nothing after a closing quote but a separator or a line break
/// is accepted, and a quote left open at the end is an error.
struct CSVRecordReader {
    private let bytes: [UInt8]
    private var position = 0
    private var line = 1

    /// Creates a reader of `bytes`, skipping a UTF-8 byte order mark.
    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
    }

    /// The next record's fields and the line it starts on, or nil at the end of the content.
    ///
    /// - Complexity: O(*n*), where *n* is the record's length in bytes.
    mutating func next() throws(CSVSyntaxError) -> (line: Int, fields: [CSVField])? {
        while position < bytes.count, isLineBreak(at: position) { skipLineBreak() }
        guard position < bytes.count else { return nil }
        let startLine = line
        var fields: [CSVField] = []
        while true {
            fields.append(try nextField(startLine: startLine))
            if position < bytes.count, bytes[position] == UInt8(ascii: ",") {
                position += 1
                continue
            }
            if position < bytes.count { skipLineBreak() }
            return (startLine, fields)
        }
    }

    /// Reads one field and stops on the separator or line break after it (or at the end).
    private mutating func nextField(startLine: Int) throws(CSVSyntaxError) -> CSVField {
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
            let start = position
            while position < bytes.count, bytes[position] != UInt8(ascii: ","), !isLineBreak(at: position) {
                position += 1
            }
            return CSVField(range: start..<position, isQuoted: false)
        }
        position += 1
        let start = position
        while true {
            guard position < bytes.count else { throw CSVSyntaxError(line: startLine, reason: "unterminated quote") }
            let byte = bytes[position]
            position += 1
            if byte == UInt8(ascii: "\n") { line += 1 }
            guard byte == UInt8(ascii: "\"") else { continue }
            if position < bytes.count, bytes[position] == UInt8(ascii: "\"") {
                position += 1
                continue
            }
            let field = CSVField(range: start..<(position - 1), isQuoted: true)
            guard position == bytes.count || bytes[position] == UInt8(ascii: ",") || isLineBreak(at: position) else {
                throw CSVSyntaxError(line: line, reason: "text after a closing quote")
            }
            return field
        }
    }

    /// Whether a line break (LF, or CR followed by LF) starts at `index`.
    private func isLineBreak(at index: Int) -> Bool {
        bytes[index] == UInt8(ascii: "\n")
            || (bytes[index] == UInt8(ascii: "\r") && index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "\n"))
    }

    /// Steps over the line break at `position`.
    private mutating func skipLineBreak() {
        position += bytes[position] == UInt8(ascii: "\r") ? 2 : 1
        line += 1
    }
}
