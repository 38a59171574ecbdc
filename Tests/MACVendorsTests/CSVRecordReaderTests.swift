import Testing

@testable import MACVendors

/// Splits `text` into records: each record's line and field texts.
private func records(_ text: String) throws -> [(line: Int, fields: [String])] {
    let bytes = Array(text.utf8)
    var reader = CSVRecordReader(bytes)
    var records: [(line: Int, fields: [String])] = []
    while let (line, fields) = try reader.next() { records.append((line, fields.map { $0.text(in: bytes) })) }
    return records
}

@Suite struct CSVRecordReaderTests {
    @Test func fieldsAndLines() throws {
        let split = try records("\u{FEFF}a,\"b,c\",\r\n\r\n\"x\ny\",\"\"\"q\"\"\",z\"w\nlast,,")
        #expect(split.map(\.line) == [1, 3, 5])
        #expect(split.map(\.fields) == [["a", "b,c", ""], ["x\ny", "\"q\"", "z\"w"], ["last", "", ""]])
    }

    @Test func aLoneCarriageReturnIsText() throws {
        #expect(try records("a\rb,c\n").map(\.fields) == [["a\rb", "c"]])
    }

    @Test func emptyContentHasNoRecord() throws {
        #expect(try records("").isEmpty)
        #expect(try records("\r\n\n").isEmpty)
    }

    @Test func unterminatedQuoteNamesTheRecordsFirstLine() {
        let error = #expect(throws: CSVSyntaxError.self) { try records("a\n\"b\nc\nd") }
        #expect(error?.line == 2)
    }

    @Test(arguments: ["  Acme  ", "\u{A0}Acme\t", "\u{2002}Acme\u{2002}", "Acme"])
    func trimming(name: String) {
        #expect(trimmingWhitespace(name) == "Acme")
    }

    @Test func trimmingKeepsInnerSpacesAndEmptiesBlanks() {
        #expect(trimmingWhitespace(" A\u{A0}B C ") == "A\u{A0}B C")
        #expect(trimmingWhitespace(" \t ") == "")
    }
}
