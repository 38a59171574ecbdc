import Foundation
import Testing

@testable import Varlink

@Suite("VarlinkReply: a reply's parameters as received")
struct VarlinkReplyTests {
    private func raw(_ message: String) throws -> String {
        String(decoding: try VarlinkReply(message: Data(message.utf8)).rawParameters, as: UTF8.self)
    }

    @Test("the parameters object comes out byte for byte, wherever it stands")
    func rawParameters() throws {
        #expect(try raw(#"{"parameters":{"b":1,"a":[1,{"x":"}"}]}}"#) == #"{"b":1,"a":[1,{"x":"}"}]}"#)
        #expect(try raw(#"{"continues":true,"parameters":{"s":"a\"b\\"}}"#) == #"{"s":"a\"b\\"}"#)
        #expect(
            try raw(#"{"parameters":{"n":18446744073709551615} ,"continues":true}"#) == #"{"n":18446744073709551615}"#
        )
        #expect(try raw(#" { "error" : "x.Y" , "parameters" : { } } "#) == "{ }")
        #expect(
            try raw(#"{"other":{"parameters":{"nested":1}},"parameters":{"top":2}}"#) == #"{"top":2}"#,
            "a member of a nested object is not the reply's"
        )
        #expect(try raw(#"{"p":"\"parameters\":1","parameters":{"k":3}}"#) == #"{"k":3}"#, "nor a string's text")
    }

    @Test("the parameters share the message's bytes: a large reply is not copied")
    func rawParametersAreNotCopied() throws {
        let value = String(repeating: "x", count: 1000)  // more than Data keeps inline
        let reply = try VarlinkReply(message: Data(#"{"continues":true,"parameters":{"k":"\#(value)"}}"#.utf8))
        let parameters = reply.rawParameters
        let messageStart = reply.message.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
        let parametersStart = parameters.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
        #expect(parametersStart == messageStart + UInt(parameters.startIndex - reply.message.startIndex))
    }

    @Test("a reply without parameters has an empty object")
    func noParameters() throws {
        #expect(try raw(#"{"continues":true}"#) == "{}")
        #expect(try raw("{}") == "{}")
    }

    @Test("the scanner never traps on malformed input")
    func malformed() {
        for text in [
            "", "[]", "{", #"{"parameters""#, #"{"parameters":"#, #"{"parameters":{"a":"#, #"{"a":"x"#, "\"", "{\"\\",
            #"{"parameters":"\"#, #"{"parameters":{"a":"\"#,
        ] {
            let json = Data(text.utf8)
            if let range = JSONMemberScanner.valueRange(of: "parameters", inObject: json) {
                #expect(range.lowerBound >= json.startIndex && range.upperBound <= json.endIndex, "\(text)")
            }
        }
        #expect(JSONMemberScanner.valueRange(of: "parameters", inObject: Data("[]".utf8)) == nil)
    }

    @Test("a sliced message is scanned at its own indices")
    func slicedData() throws {
        let whole = Data(#"xx{"parameters":{"k":1}}"#.utf8)
        let slice = whole[whole.index(whole.startIndex, offsetBy: 2)...]
        let range = try #require(JSONMemberScanner.valueRange(of: "parameters", inObject: slice))
        #expect(String(decoding: slice[range], as: UTF8.self) == #"{"k":1}"#)
    }
}
