import Foundation
import NIOCore
import Testing

@testable import Varlink

/// The fuzzer's committed corpus (Tests/Fuzz/corpus), replayed in the ordinary tests: every input decodes to frames
/// and calls (or errors) without trapping. An input that once crashed `make fuzz` goes there, named for what it
/// found, and so becomes a regression test.
@Suite("The fuzz corpus, replayed")
struct FuzzCorpusTests {
    static let corpus = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appending(path: "Fuzz/corpus")

    static var inputs: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: corpus.path())) ?? []).sorted()
    }

    /// The calls and replies in `data`, as the server and the client would decode them.
    static func decode(_ data: Data) -> (frames: Int, calls: Int) {
        var buffer = ByteBuffer(bytes: data)
        var decoder = VarlinkFrameDecoder(maximumMessageSize: 4096)
        var frames = 0
        var calls = 0
        while let frame = try? decoder.decode(buffer: &buffer) {
            frames += 1
            let message = Data(frame.readableBytesView)
            _ = try? VarlinkReply(message: message)
            if let call = try? VarlinkCall(message: message) {
                calls += 1
                _ = try? call.parameterNames()
                _ = try? call.parameters(as: [String: String].self)
            }
        }
        return (frames, calls)
    }

    @Test("there is a corpus")
    func corpusIsThere() {
        #expect(Self.inputs.count >= 10, "\(Self.corpus.path())")
    }

    @Test("every input decodes without trapping", arguments: inputs)
    func replay(input: String) throws {
        let data = try Data(contentsOf: Self.corpus.appending(path: input))
        let (frames, calls) = Self.decode(data)
        switch input {
        case "pipelined": #expect(frames == 3 && calls == 3)
        case "unterminated": #expect(frames == 0)
        case "reply-monitor", "reply-error": #expect(frames == 1 && calls == 0)
        default: #expect(frames >= 1)
        }
    }
}
