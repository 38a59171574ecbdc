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

    /// A header: this ID, a response without error, with these counts of questions and answers.
    private func header(id: UInt16, questions: UInt8, answers: UInt8) -> [UInt8] {
        [UInt8(id >> 8), UInt8(id & 0xFF), 0x84, 0, 0, questions, 0, answers, 0, 0, 0, 0]
    }

    private var name: [UInt8] { (try? MDNSQuery.encodedName("alpha.local")) ?? [] }

    @Test func `an answer is a response to the query's ID, without error, with an answer`() {
        #expect(MDNSQuery.isAnswer(response(id: 0x1234), to: 0x1234, for: name))
        #expect(!MDNSQuery.isAnswer(response(id: 0x1235), to: 0x1234, for: name), "another query's")
        #expect(!MDNSQuery.isAnswer(response(id: 0x1234, flags: 0x00), to: 0x1234, for: name), "a query")
        #expect(!MDNSQuery.isAnswer(response(id: 0x1234, code: 3), to: 0x1234, for: name), "an error (NXDOMAIN)")
        #expect(!MDNSQuery.isAnswer(response(id: 0x1234, answers: 0), to: 0x1234, for: name), "no answer")
        #expect(!MDNSQuery.isAnswer(Array(response(id: 0x1234).prefix(11)), to: 0x1234, for: name), "no header")
    }

    @Test func `a header that claims an answer, without the answer, is none`() {
        #expect(!MDNSQuery.isAnswer(header(id: 0x1234, questions: 0, answers: 1), to: 0x1234, for: name))
        #expect(!MDNSQuery.isAnswer(Array(response(id: 0x1234).dropLast()), to: 0x1234, for: name), "cut short")
    }

    @Test func `an answer for another name, or without an address record, is none`() throws {
        let beta: [UInt8] = [4] + Array("beta".utf8) + [5] + Array("local".utf8) + [0]
        let forBeta = header(id: 7, questions: 0, answers: 1) + beta + [0, 1, 0, 1, 0, 0, 0, 10, 0, 4, 10, 0, 0, 2]
        #expect(!MDNSQuery.isAnswer(forBeta, to: 7, for: name))
        let text = header(id: 7, questions: 0, answers: 1) + alpha + [0, 16, 0, 1, 0, 0, 0, 10, 0, 2, 1, 0x61]
        #expect(!MDNSQuery.isAnswer(text, to: 7, for: name), "a TXT record of the name")
        let short = header(id: 7, questions: 0, answers: 1) + alpha + [0, 1, 0, 1, 0, 0, 0, 10, 0, 3, 10, 0, 0]
        #expect(!MDNSQuery.isAnswer(short, to: 7, for: name), "an A record of 3 bytes")
        let chaos = header(id: 7, questions: 0, answers: 1) + alpha + [0, 1, 0, 3, 0, 0, 0, 10, 0, 4, 10, 0, 0, 1]
        #expect(!MDNSQuery.isAnswer(chaos, to: 7, for: name), "class CH")
    }

    @Test func `a compressed answer after the repeated questions is one, its name in either case`() throws {
        // The legacy unicast answer (RFC 6762 §6.7): the two questions, then an AAAA record of the first question's
        // name through a pointer to offset 12, cache-flush bit set, then an A record of "ALPHA" + a pointer to
        // "local" (offset 18).
        let question = try MDNSQuery.message(id: 0x4242, hostName: "alpha.local")
        var answer = question
        answer[2] = 0x84
        answer[7] = 2
        answer += [0xC0, 12, 0, 28, 0x80, 1, 0, 0, 0, 10, 0, 16] + [UInt8](repeating: 0xFE, count: 16)
        answer += [5] + Array("ALPHA".utf8) + [0xC0, 18, 0, 1, 0, 1, 0, 0, 0, 10, 0, 4, 192, 0, 2, 1]
        #expect(MDNSQuery.isAnswer(answer, to: 0x4242, for: name))
        var second = answer
        second[7] = 1
        second[12 + 2 * 17 + 1] = 12 + 6  // the first answer names "local" only
        #expect(!MDNSQuery.isAnswer(second, to: 0x4242, for: name), "the first answer is local., and no other")
        var upper = answer
        upper[12 + 2 * 17 + 1] = 12 + 6
        #expect(MDNSQuery.isAnswer(upper, to: 0x4242, for: name), "the second answer, ALPHA.local, is the name's")
    }

    @Test func `compression pointers that loop or point forward are malformed`() {
        let looping = header(id: 1, questions: 0, answers: 1) + [0xC0, 12, 0, 1, 0, 1, 0, 0, 0, 10, 0, 4, 1, 2, 3, 4]
        #expect(!MDNSQuery.isAnswer(looping, to: 1, for: name))
        #expect(MDNSQuery.readName(looping, at: 12) == nil)
        let forward = header(id: 1, questions: 0, answers: 1) + [0xC0, 14] + alpha
        #expect(MDNSQuery.readName(forward, at: 12) == nil)
        let backward = header(id: 1, questions: 0, answers: 0) + alpha + [0xC0, 12]
        let read = MDNSQuery.readName(backward, at: 12 + alpha.count)
        #expect(read?.name == alpha)
        #expect(read?.next == backward.count)
    }
}
