// The reader thread and its eventfd: cancellation wakes the thread out of poll(2), input is reported per descriptor,
// and the body's error ends the run with its own type.

import Glibc
import NIOConcurrencyHelpers
import TestSupport
import Testing

@testable import AsyncPrimitives

@Suite(.timeLimit(.minutes(1))) struct ThreadWakeupTests {
    struct ReadFailure: Error, Equatable {
        var operation: String
        var errno: Int32
    }

    /// A pipe: a descriptor to poll that the test makes readable.
    final class Pipe: Sendable {
        let readEnd: Int32
        let writeEnd: Int32

        init() throws {
            var ends: [Int32] = [0, 0]
            guard pipe(&ends) == 0 else { throw ReadFailure(operation: "pipe", errno: errno) }
            (readEnd, writeEnd) = (ends[0], ends[1])
        }

        deinit {
            close(readEnd)
            close(writeEnd)
        }

        func write(_ byte: UInt8) {
            var byte = byte
            _ = Glibc.write(writeEnd, &byte, 1)
        }
    }

    @Test func cancellingTheAwaitingTaskWakesTheThreadOutOfPoll() async throws {
        let wakeup = try ThreadWakeup { ReadFailure(operation: "eventfd", errno: $0) }
        let idle = try Pipe()
        let polls = NIOLockedValueBox((started: 0, woken: 0))
        let reader = Task {
            try await wakeup.run(threadNamed: "peerscan-test") { () throws(ReadFailure) in
                while true {
                    polls.withLockedValue { $0.started += 1 }
                    let ready = try wakeup.waitForInput(on: [idle.readEnd]) {
                        ReadFailure(operation: "poll", errno: $0)
                    }
                    guard ready != nil else { break }
                }
                polls.withLockedValue { $0.woken += 1 }
            }
        }
        #expect(await eventually { polls.withLockedValue { $0.started } == 1 }, "the thread waits in poll")
        reader.cancel()
        let ended = await eventually(within: .seconds(10)) { polls.withLockedValue { $0.woken } == 1 }
        if !ended { wakeup.signal() }  // so that a failure fails instead of hanging the suite
        try await reader.value
        #expect(ended, "cancelling the task ended the poll")
        #expect(polls.withLockedValue { $0 } == (started: 1, woken: 1), "one poll, ended by the wakeup alone")
    }

    @Test func aTaskCancelledBeforeTheThreadStartsStillEndsIt() async throws {
        let wakeup = try ThreadWakeup { ReadFailure(operation: "eventfd", errno: $0) }
        let idle = try Pipe()
        let wokenBySignal = NIOLockedValueBox(0)
        let reader = Task {
            withUnsafeCurrentTask { $0?.cancel() }  // before run: the eventfd is signalled before the thread exists
            try await wakeup.run(threadNamed: "peerscan-test") { () throws(ReadFailure) in
                let ready = try wakeup.waitForInput(on: [idle.readEnd]) { ReadFailure(operation: "poll", errno: $0) }
                if ready == nil { wokenBySignal.withLockedValue { $0 += 1 } }
            }
        }
        let ended = await eventually(within: .seconds(10)) { wokenBySignal.withLockedValue { $0 } == 1 }
        if !ended { wakeup.signal() }  // so that a failure fails instead of hanging the suite
        try await reader.value
        #expect(ended, "the signal sent at cancellation was kept for the poll")
    }

    @Test func inputIsReportedForItsDescriptorOnly() async throws {
        let wakeup = try ThreadWakeup { ReadFailure(operation: "eventfd", errno: $0) }
        let (first, second) = (try Pipe(), try Pipe())
        second.write(7)
        let ready = try wakeup.waitForInput(on: [first.readEnd, second.readEnd]) {
            ReadFailure(operation: "poll", errno: $0)
        }
        #expect(ready == [false, true])
        wakeup.signal()
        let afterSignal = try wakeup.waitForInput(on: [second.readEnd]) { ReadFailure(operation: "poll", errno: $0) }
        #expect(afterSignal == nil, "a signal wins over pending input, and stays until drained")
        wakeup.drain()
        #expect(try wakeup.waitForInput(on: [second.readEnd]) { ReadFailure(operation: "poll", errno: $0) } == [true])
    }

    @Test func aReadErrorEndsTheRunWithTheBodysTypedError() async throws {
        let wakeup = try ThreadWakeup { ReadFailure(operation: "eventfd", errno: $0) }
        let input = try Pipe()
        input.write(1)
        do throws(ReadFailure) {
            try await wakeup.run(threadNamed: "peerscan-test") { () throws(ReadFailure) in
                let ready = try wakeup.waitForInput(on: [input.readEnd]) { ReadFailure(operation: "poll", errno: $0) }
                if ready == [true] { throw ReadFailure(operation: "receive", errno: EIO) }
            }
            Issue.record("the run returned instead of throwing")
        } catch {
            // `error` is a ReadFailure by its static type: run(threadNamed:) rethrows the body's type.
            #expect(error == ReadFailure(operation: "receive", errno: EIO))
        }
    }

    @Test func aWaitWithATimeoutReturnsWhenSignalledAndDrains() async throws {
        let wakeup = try ThreadWakeup { ReadFailure(operation: "eventfd", errno: $0) }
        wakeup.signal()
        let clock = ContinuousClock()
        let waited = clock.measure { wakeup.wait(timeout: .seconds(30)) }
        #expect(waited < .seconds(10), "signalled: no wait for the timeout")
        let idle = try Pipe()
        wakeup.signal()
        wakeup.drain()
        idle.write(1)
        #expect(try wakeup.waitForInput(on: [idle.readEnd]) { ReadFailure(operation: "poll", errno: $0) } == [true])
    }
}
