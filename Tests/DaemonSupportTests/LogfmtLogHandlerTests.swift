import DaemonSupport
import Foundation
import Glibc
import Logging
import Testing

@Suite("LogfmtLogHandler: the line format")
struct LogfmtFormatTests {
    let date = Date(timeIntervalSince1970: 1_700_000_000.25)  // 2023-11-14T22:13:20.250Z, exact in binary

    @Test("journald: the priority prefix, the message, the fields sorted by key, quoted where needed")
    func journald() {
        let line = LogfmtLogHandler.format(
            level: .info,
            message: "device added",
            metadata: ["name": "Living Room TV", "id": "a1b2c3", "host": "tv.local", "addresses": "10.0.0.7"],
            forJournal: true,
            date: date
        )
        #expect(line == #"<6>device added addresses=10.0.0.7 host=tv.local id=a1b2c3 name="Living Room TV""#)
    }

    @Test("without journald: an RFC 3339 UTC timestamp with milliseconds, then the level")
    func timestamped() {
        let line = LogfmtLogHandler.format(
            level: .warning,
            message: "avahi restarted",
            metadata: ["attempt": "2"],
            forJournal: false,
            date: date
        )
        #expect(line == "2023-11-14T22:13:20.250Z warning avahi restarted attempt=2")
        #expect(
            LogfmtLogHandler.format(
                level: .info,
                message: "m",
                metadata: [:],
                forJournal: false,
                date: Date(timeIntervalSince1970: 0)
            ) == "1970-01-01T00:00:00.000Z info m"
        )
    }

    @Test("now: the line starts with a well-formed UTC timestamp")
    func timestampShape() throws {
        let line = LogfmtLogHandler.format(level: .error, message: "x", metadata: [:], forJournal: false, date: Date())
        let pattern = try Regex(#"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z error x$"#)
        #expect(line.wholeMatch(of: pattern) != nil, "\(line)")
    }

    @Test("no metadata: the message alone")
    func noMetadata() {
        #expect(
            LogfmtLogHandler.format(level: .notice, message: "started", metadata: [:], forJournal: true, date: date)
                == "<5>started"
        )
    }

    @Test(
        "values are quoted when empty or holding a space, =, \", \\ or a control character; \" and \\ are escaped",
        arguments: [
            ("tv.local", "tv.local"),
            ("10.0.0.7", "10.0.0.7"),
            ("fe80::1%eth0", "fe80::1%eth0"),
            ("_airplay._tcp,_raop._tcp", "_airplay._tcp,_raop._tcp"),
            ("Télé du salon", #""Télé du salon""#),
            ("Télé", "Télé"),
            ("", #""""#),
            ("Living Room", #""Living Room""#),
            ("a=b", #""a=b""#),
            (#"say "hi""#, #""say \"hi\"""#),
            (#"C:\temp"#, #""C:\\temp""#),
            ("two\nlines", #""two\nlines""#),
            ("tab\there", #""tab\there""#),
            ("bell\u{07}", #""bell\u{7}""#),
            ("escape\u{1B}[31m", #""escape\e[31m""#),
            ("cr\r and c1\u{9B}", #""cr\r and c1\u{9b}""#),
            ("nul\u{0}", #""nul\u{0}""#),
        ]
    )
    func quoting(value: String, expected: String) {
        #expect(LogfmtLogHandler.quoted(value) == expected)
    }

    @Test("every C0 control character is escaped, so no raw one reaches the log", arguments: Array(0x00...0x1F))
    func controlCharacters(scalar: Int) throws {
        let character = try #require(Unicode.Scalar(scalar))
        let quoted = LogfmtLogHandler.quoted("a\(character)b")
        #expect(quoted.hasPrefix("\"a") && quoted.hasSuffix("b\""), "\(quoted.debugDescription)")
        #expect(!quoted.unicodeScalars.contains(character), "\(quoted.debugDescription)")
    }

    @Test("a value in the line: quoting applies, and the line stays one line")
    func quotingInLine() {
        let line = LogfmtLogHandler.format(
            level: .error,
            message: "resolve failed",
            metadata: ["error": "Timeout reached\n(after 5 s)", "name": "", "path": #"C:\x"#],
            forJournal: true,
            date: date
        )
        #expect(line == #"<3>resolve failed error="Timeout reached\n(after 5 s)" name="" path="C:\\x""#)
    }

    @Test("a newline in the message, in any form, does not end the line", arguments: ["a\nb", "a\r\nb", "a\n\nb"])
    func newlineInMessage(message: String) {
        let line = LogfmtLogHandler.format(level: .info, message: message, metadata: [:], forJournal: true, date: date)
        #expect(!line.unicodeScalars.contains("\n"), "\(line.debugDescription)")
        #expect(line.hasPrefix("<6>a") && line.hasSuffix("b"))
    }

    @Test("a metadata key cannot break the line or forge a field")
    func awkwardKeys() {
        let line = LogfmtLogHandler.format(
            level: .info,
            message: "m",
            metadata: ["bad\nkey": "1", "a b=c": "2"],
            forJournal: true,
            date: date
        )
        #expect(!line.unicodeScalars.contains("\n"), "\(line.debugDescription)")
        #expect(!line.contains(" b=c"), "\(line.debugDescription)")
    }

    @Test("metadata of every shape is rendered as its description")
    func metadataShapes() {
        let line = LogfmtLogHandler.format(
            level: .debug,
            message: "m",
            metadata: ["list": ["a", "b"], "count": "\(3)"],
            forJournal: true,
            date: date
        )
        #expect(line == #"<7>m count=3 list="[\"a\", \"b\"]""#)
    }

    @Test(
        "the syslog priority of every level",
        arguments: [
            (Logger.Level.trace, 7), (.debug, 7), (.info, 6), (.notice, 5), (.warning, 4), (.error, 3), (.critical, 2),
        ]
    )
    func priority(level: Logger.Level, priority: Int) {
        #expect(LogfmtLogHandler.priority(level) == priority)
        #expect(
            LogfmtLogHandler.format(level: level, message: "m", metadata: [:], forJournal: true, date: date)
                == "<\(priority)>m"
        )
    }
}

@Suite("LogfmtLogHandler: is standard error the journal?")
struct JournalDetectionTests {
    @Test("JOURNAL_STREAM naming standard error's device and inode: yes; another, or none: no")
    func journalStream() async {
        // In a child process: setenv is not thread-safe, and other tests run in this one.
        await #expect(processExitsWith: .success) {
            var status = stat()
            guard fstat(2, &status) == 0 else { exit(3) }
            setenv("JOURNAL_STREAM", "\(status.st_dev):\(status.st_ino)", 1)
            guard LogfmtLogHandler.standardErrorIsJournal() else { exit(1) }
            setenv("JOURNAL_STREAM", "\(status.st_dev):\(status.st_ino + 1)", 1)
            guard !LogfmtLogHandler.standardErrorIsJournal() else { exit(1) }
            setenv("JOURNAL_STREAM", "garbage", 1)
            guard !LogfmtLogHandler.standardErrorIsJournal() else { exit(1) }
            unsetenv("JOURNAL_STREAM")
            guard !LogfmtLogHandler.standardErrorIsJournal() else { exit(1) }
            exit(EXIT_SUCCESS)
        }
    }
}

@Suite("LogfmtLogHandler: writing lines", .timeLimit(.minutes(1)))
struct LogfmtWriterTests {
    @Test("one line per log call, with the handler's and the call's metadata, below the level nothing")
    func oneLinePerCall() throws {
        let pipe = try TestPipe()
        var logger = Logger(label: "test") { _ in
            LogfmtLogHandler(level: .info, forJournal: true, descriptor: pipe.writeEnd)
        }
        logger[metadataKey: "component"] = "store"
        logger.info("device added", metadata: ["name": "Living Room TV"])
        logger.debug("not written")
        logger.error("two\nlines", metadata: ["error": "a\nb", "component": "browser"])
        logger.notice("last")
        pipe.closeWriteEnd()
        #expect(
            try pipe.readAll() == """
                <6>device added component=store name="Living Room TV"
                <3>two lines component=browser error="a\\nb"
                <5>last component=store

                """
        )
    }

    @Test("the log level can be changed through the logger")
    func logLevel() throws {
        let pipe = try TestPipe()
        var logger = Logger(label: "test") { _ in
            LogfmtLogHandler(level: .info, forJournal: true, descriptor: pipe.writeEnd)
        }
        #expect(logger.logLevel == .info)
        logger.logLevel = .trace
        logger.trace("now written")
        pipe.closeWriteEnd()
        #expect(try pipe.readAll() == "<7>now written\n")
    }

    /// Logs `count` lines from each of `writers` concurrent writers to one pipe, reads them back, and checks that
    /// every line is whole. The writers are threads, not tasks: a write to a full pipe blocks its thread, and
    /// blocked tasks would starve the (two-thread) cooperative pool the other tests' servers run on.
    /// - Parameter sharesLogger: All writers use one logger (one handler), or each makes its own (as
    ///   `LoggingSystem.bootstrap` makes a handler per logger).
    private func concurrentLines(
        writers: Int,
        count: Int,
        payload: Int,
        sharesLogger: Bool,
        makeLogger: @escaping @Sendable (_ descriptor: Int32) -> Logger
    ) async throws {
        let pipe = try TestPipe()
        let descriptor = pipe.writeEnd
        let padding = String(repeating: "p", count: payload)
        let shared = makeLogger(descriptor)
        async let text = readToEndOfFile(pipe.readEnd)
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                        Thread {
                            let logger = sharesLogger ? shared : makeLogger(descriptor)
                            for line in 0..<count {
                                logger.info(
                                    "line",
                                    metadata: ["task": "\(writer)", "n": "\(line)", "pad": "\(padding)"]
                                )
                            }
                            done.resume()
                        }.start()
                    }
                }
            }
        }
        pipe.closeWriteEnd()
        let lines = try await text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == writers * count + 1)
        #expect(lines.last == "")
        var seen = Set<String>()
        var malformed = 0
        for line in lines.dropLast() {
            let match = line.wholeMatch(of: /<6>line n=(\d+) pad=(p*) task=(\d+)/)
            guard let match, match.2.count == payload else {
                malformed += 1
                continue
            }
            seen.insert("\(match.3)/\(match.1)")
        }
        #expect(malformed == 0)
        #expect(seen.count == writers * count)
    }

    @Test("1000 lines, longer than PIPE_BUF, from 8 concurrent writers through one logger: every line whole")
    func concurrentSharedHandler() async throws {
        try await concurrentLines(writers: 8, count: 125, payload: 3 * 4096, sharesLogger: true) { descriptor in
            Logger(label: "test") { _ in LogfmtLogHandler(level: .info, forJournal: true, descriptor: descriptor) }
        }
    }

    @Test("lines longer than PIPE_BUF from loggers with handlers of their own never interleave")
    func concurrentSeparateHandlers() async throws {
        try await concurrentLines(writers: 8, count: 125, payload: 3 * 4096, sharesLogger: false) { descriptor in
            Logger(label: "test") { _ in LogfmtLogHandler(level: .info, forJournal: true, descriptor: descriptor) }
        }
    }
}
