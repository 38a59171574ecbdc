import Foundation
import JSONValue
import Testing

@Suite struct JSONTests {
    /// A value is encoded as it was decoded: integers stay integers (also past 2⁵³, where a Double would round),
    /// other numbers stay numbers, a bool is never a number.
    @Test(arguments: [
        #"{"a":9007199254740993}"#, #"{"a":-1}"#, #"{"a":1.5}"#, #"{"a":true}"#, #"{"a":null}"#,
        #"{"a":["x",{"b":[]}]}"#,
    ])
    func encodesAsDecoded(text: String) throws {
        let value = try JSON(parsing: text)
        let encoded = try JSONEncoder().encode(value)
        #expect(try JSON(parsing: String(decoding: encoded, as: UTF8.self)) == value)
        #expect(String(decoding: encoded, as: UTF8.self) == text)
    }

    @Test func kindsAreStrict() throws {
        #expect(try JSON(parsing: "1") == .int(1))
        #expect(try JSON(parsing: "1.25") == .float(1.25))
        #expect(try JSON(parsing: "false") == .bool(false))
        #expect(try JSON(parsing: #"{"k":"v"}"#)["k"] == "v")
        #expect(throws: DecodingError.self) { try JSON(parsing: "{") }
    }
}
