import Foundation
import PeerScanModel
import TestSupport
import Testing

@testable import PeerScanClient

@Suite("Colour, escaping and time stamps")
struct TerminalTextTests {
    @Test(
        "colour only on a terminal, with NO_COLOR unset or empty and TERM not dumb",
        arguments: [
            (true, [:], true),
            (true, ["NO_COLOR": ""], true),
            (true, ["NO_COLOR": "1"], false),
            (true, ["NO_COLOR": "0"], false),
            (true, ["TERM": "dumb"], false),
            (true, ["TERM": "xterm-256color"], true),
            (false, [:], false),
        ] as [(Bool, [String: String], Bool)]
    )
    func colourDecision(isTerminal: Bool, environment: [String: String], expected: Bool) {
        #expect(TerminalText.usesColour(isTerminal: isTerminal, environment: environment) == expected)
    }

    @Test("change lines in colour: green +, red -, yellow ~; configuration uncoloured")
    func colouredLines() {
        let printer = WatchPrinter(format: .text, usesColour: true, showsTimestamps: false)
        #expect(printer.changeLine(ChangeLine(.added, "a")).text == "\u{1B}[32m+ a\u{1B}[0m")
        #expect(printer.changeLine(ChangeLine(.removed, "a")).text == "\u{1B}[31m- a\u{1B}[0m")
        #expect(printer.changeLine(ChangeLine(.changed, "a")).text == "\u{1B}[33m~ a\u{1B}[0m")
        #expect(printer.changeLine(ChangeLine(.configuration, "scanning switched on")).text == "scanning switched on")
    }

    @Test("change lines without colour")
    func plainLines() {
        let printer = WatchPrinter(format: .text, usesColour: false, showsTimestamps: false)
        #expect(printer.changeLine(ChangeLine(.added, "a")) == OutputLine(.standardOutput, "+ a"))
        #expect(printer.changeLine(ChangeLine(.removed, "a")).text == "- a")
    }

    @Test("time stamps: RFC 3339 with the local offset, on change lines and notes")
    func timestamps() {
        let instant = Date(timeIntervalSince1970: 1_748_786_587)  // 2025-06-01T14:03:07Z
        #expect(Timestamp.rfc3339(instant, timeZone: TimeZone(secondsFromGMT: 0)!) == "2025-06-01T14:03:07Z")
        #expect(Timestamp.rfc3339(instant, timeZone: TimeZone(secondsFromGMT: 7200)!) == "2025-06-01T16:03:07+02:00")
        #expect(
            Timestamp.rfc3339(instant, timeZone: TimeZone(secondsFromGMT: -(3 * 3600 + 1800))!)
                == "2025-06-01T10:33:07-03:30"
        )
        let printer = WatchPrinter(
            format: .text,
            usesColour: false,
            showsTimestamps: true,
            now: { instant },
            timeZone: TimeZone(secondsFromGMT: 7200)!
        )
        #expect(printer.changeLine(ChangeLine(.added, "a")).text == "2025-06-01T16:03:07+02:00 + a")
        #expect(
            printer.note("reconnected")
                == OutputLine(.standardError, "2025-06-01T16:03:07+02:00 peerscanctl: reconnected")
        )
    }

    @Test("a note quoting what peerscand sent is one line, its control characters escaped")
    func noteEscaped() {
        let printer = WatchPrinter(format: .text, usesColour: false, showsTimestamps: false)
        #expect(
            printer.note("out of sync (item wifi:evil\u{1b}[2J\nforged)")
                == OutputLine(.standardError, #"peerscanctl: out of sync (item wifi:evil\e[2J\nforged)"#)
        )
    }

    @Test("control characters are escaped, other text is kept")
    func escaping() {
        #expect(TerminalText.escapingControlCharacters("Living Room TV — 客厅") == "Living Room TV — 客厅")
        #expect(
            TerminalText.escapingControlCharacters("a\u{1B}[31mb\n\t\r\u{0}\u{7F}\u{9B}")
                == #"a\e[31mb\n\t\r\u{0}\u{7f}\u{9b}"#
        )
    }
}

@Suite("Standard output")
struct StandardStreamsTests {
    @Test("waiting for the reader of a pipe returns once it closed its end, not before", .timeLimit(.minutes(1)))
    func readerCloses() async throws {
        var descriptors: [CInt] = [0, 0]
        try #require(pipe(&descriptors) == 0)
        let (readEnd, writeEnd) = (descriptors[0], descriptors[1])
        defer { close(writeEnd) }
        // The reader is there: the wait goes on past two checks (it checks twice a second).
        let whileOpen = await withTimeLimit(.milliseconds(1200)) {
            await StandardStreams.waitUntilReaderCloses(writeEnd)
        }
        #expect(whileOpen == nil, "returned while the reader was still there")
        close(readEnd)
        let afterClose = await withTimeLimit(.seconds(10)) { await StandardStreams.waitUntilReaderCloses(writeEnd) }
        #expect(afterClose != nil, "did not return within 10 s of the reader closing")
    }

    @Test("waiting on something that is not a pipe ends only when cancelled", .timeLimit(.minutes(1)))
    func notAPipe() async throws {
        let descriptor = open("/dev/null", O_WRONLY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        // Running past two checks shows it does not return by itself; the time limit's cancellation then ends it
        // (if it did not, withTimeLimit would not return and the test's time limit would fail it).
        let result = await withTimeLimit(.milliseconds(1200)) {
            await StandardStreams.waitUntilReaderCloses(descriptor)
        }
        #expect(result == nil, "returned without being cancelled")
    }
}
