// The one-shot mDNS query the question source sends, byte for byte, and the test its answers must pass. (Sending it
// is tested against real responders on the test LAN: Tests/Integration/test_presence.py.)

import Testing

@testable import MDNSQuestions

@Suite struct MDNSQueryTests {
    private let alpha: [UInt8] = [5] + Array("alpha".utf8) + [5] + Array("local".utf8) + [0]

    @Test func `the query asks for the host name's A and AAAA records, with its ID and no known answers`() throws {
        let message = try MDNSQuery.message(id: 0xBEEF, hostName: "alpha.local")
        let header: [UInt8] = [0xBE, 0xEF, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0]
        #expect(message == header + alpha + [0, 1, 0, 1] + alpha + [0, 28, 0, 1])
    }

    @Test func `a final dot changes nothing`() throws {
        #expect(
            try MDNSQuery.message(id: 7, hostName: "alpha.local.") == MDNSQuery.message(id: 7, hostName: "alpha.local")
        )
    }

    @Test(arguments: [
        "", ".", "alpha..local", String(repeating: "a", count: 64) + ".local",
        Array(repeating: String(repeating: "a", count: 60), count: 5).joined(separator: "."),
    ])
    func `a name that is not a DNS name is refused`(name: String) {
        #expect(throws: MDNSQuestionError.unusableHostName(name)) { try MDNSQuery.message(id: 1, hostName: name) }
    }

    @Test func `a name of UTF-8 labels is sent as its bytes`() throws {
        let message = try MDNSQuery.message(id: 1, hostName: "küche.local")
        #expect(Array(message[12..<19]) == [6] + Array("küche".utf8))
    }

    private func response(id: UInt16, flags: UInt8 = 0x84, code: UInt8 = 0, answers: UInt16 = 1) -> [UInt8] {
        [UInt8(id >> 8), UInt8(id & 0xFF), flags, code, 0, 0, UInt8(answers >> 8), UInt8(answers & 0xFF), 0, 0, 0, 0]
            + alpha + [0, 1, 0, 1, 0, 0, 0, 10, 0, 4, 10, 0, 0, 1]
    }

    @Test func `an answer is a response to the query's ID, without error, with an answer`() {
        #expect(MDNSQuery.isAnswer(response(id: 0x1234), to: 0x1234))
        #expect(!MDNSQuery.isAnswer(response(id: 0x1235), to: 0x1234), "another query's")
        #expect(!MDNSQuery.isAnswer(response(id: 0x1234, flags: 0x00), to: 0x1234), "a query, not a response")
        #expect(!MDNSQuery.isAnswer(response(id: 0x1234, code: 3), to: 0x1234), "an error (NXDOMAIN)")
        #expect(!MDNSQuery.isAnswer(response(id: 0x1234, answers: 0), to: 0x1234), "no answer")
        #expect(!MDNSQuery.isAnswer(Array(response(id: 0x1234).prefix(11)), to: 0x1234), "shorter than a header")
    }
}
