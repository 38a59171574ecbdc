import NIOCore
import Testing

@testable import Varlink
@testable import VarlinkServer

@Suite("VarlinkFrameDecoder: NUL-terminated messages out of a byte stream")
struct VarlinkFrameDecoderTests {
    /// Decodes every complete message in `buffer`.
    private func messages(_ decoder: inout VarlinkFrameDecoder, _ buffer: inout ByteBuffer) throws -> [String] {
        var messages: [String] = []
        while let message = try decoder.decode(buffer: &buffer) { messages.append(String(buffer: message)) }
        return messages
    }

    @Test("several messages in one buffer come out one by one, without their terminators")
    func severalMessages() throws {
        var decoder = VarlinkFrameDecoder(maximumMessageSize: 100)
        var buffer = ByteBuffer(string: "{\"a\":1}\0{\"b\":2}\0{}\0")
        #expect(try messages(&decoder, &buffer) == [#"{"a":1}"#, #"{"b":2}"#, "{}"])
        #expect(buffer.readableBytes == 0)
    }

    @Test("a partial message waits for the rest, however it is split")
    func partialMessage() throws {
        var decoder = VarlinkFrameDecoder(maximumMessageSize: 100)
        var buffer = ByteBuffer(string: "{\"a\":1}\0{\"b\"")
        #expect(try messages(&decoder, &buffer) == [#"{"a":1}"#])
        #expect(String(buffer: buffer) == #"{"b""#, "the partial message stays in the buffer")
        buffer.writeString(":2")
        #expect(try decoder.decode(buffer: &buffer) == nil)
        buffer.writeString("}\0{")
        #expect(try messages(&decoder, &buffer) == [#"{"b":2}"#])
        #expect(String(buffer: buffer) == "{")
    }

    @Test("byte by byte, the message comes out when its NUL arrives")
    func byteByByte() throws {
        var decoder = VarlinkFrameDecoder(maximumMessageSize: 100)
        var buffer = ByteBuffer()
        var decoded: [String] = []
        for byte in Array("{\"method\":\"a.B\"}\0{}\0".utf8) {
            buffer.writeInteger(byte)
            decoded += try messages(&decoder, &buffer)
        }
        #expect(decoded == [#"{"method":"a.B"}"#, "{}"])
    }

    @Test("an empty message is a message (the server then rejects it as invalid JSON)")
    func emptyMessage() throws {
        var decoder = VarlinkFrameDecoder(maximumMessageSize: 100)
        var buffer = ByteBuffer(bytes: [0, 0])
        #expect(try messages(&decoder, &buffer) == ["", ""])
    }

    @Test("a message of exactly the maximum size is accepted; without its NUL yet, it waits")
    func exactlyTheMaximum() throws {
        var decoder = VarlinkFrameDecoder(maximumMessageSize: 10)
        var buffer = ByteBuffer(string: String(repeating: "x", count: 10))
        #expect(try decoder.decode(buffer: &buffer) == nil)
        buffer.writeInteger(UInt8(0))
        #expect(try messages(&decoder, &buffer) == [String(repeating: "x", count: 10)])
    }

    @Test("more than the maximum without a NUL is rejected before the rest arrives")
    func tooLargeWithoutTerminator() throws {
        var decoder = VarlinkFrameDecoder(maximumMessageSize: 10)
        var buffer = ByteBuffer(string: String(repeating: "x", count: 11))
        #expect(throws: VarlinkProtocolError.messageTooLarge(limit: 10)) { try decoder.decode(buffer: &buffer) }
    }

    @Test("a message whose NUL lies beyond the maximum is rejected, even when it arrived whole")
    func tooLargeWithTerminator() throws {
        var decoder = VarlinkFrameDecoder(maximumMessageSize: 10)
        var buffer = ByteBuffer(string: String(repeating: "x", count: 11) + "\0")
        #expect(throws: VarlinkProtocolError.messageTooLarge(limit: 10)) { try decoder.decode(buffer: &buffer) }
    }

    @Test("a too large message after good ones: the good ones come out first")
    func tooLargeAfterGoodOnes() throws {
        var decoder = VarlinkFrameDecoder(maximumMessageSize: 10)
        var buffer = ByteBuffer(string: "{}\0{\"a\":1}\0" + String(repeating: "x", count: 20))
        #expect(try decoder.decode(buffer: &buffer).map { String(buffer: $0) } == "{}")
        #expect(try decoder.decode(buffer: &buffer).map { String(buffer: $0) } == #"{"a":1}"#)
        #expect(throws: VarlinkProtocolError.messageTooLarge(limit: 10)) { try decoder.decode(buffer: &buffer) }
    }

    @Test("at end of file, complete messages still come out and a partial one is dropped")
    func endOfFile() throws {
        var decoder = VarlinkFrameDecoder(maximumMessageSize: 100)
        var buffer = ByteBuffer(string: "{}\0{\"a\"")
        #expect(try decoder.decodeLast(buffer: &buffer, seenEOF: true).map { String(buffer: $0) } == "{}")
        #expect(try decoder.decodeLast(buffer: &buffer, seenEOF: true) == nil)
    }
}
