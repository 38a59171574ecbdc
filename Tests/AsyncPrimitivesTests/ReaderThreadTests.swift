// The reader thread: readable input wakes its loop, a timeout fires, stop and cancellation end the thread, several
// descriptors are told apart, and the thread's typed error ends the run.

import Glibc
import NIOConcurrencyHelpers
import TestSupport
import Testing

@testable import AsyncPrimitives

@Suite(.timeLimit(.minutes(1))) struct ReaderThreadTests {
    @Test func readableInputWakesTheLoopAndStopEndsTheThread() async throws {
        let reader = try ReaderThread { ReadFailure(operation: "eventfd", errno: $0) }
        let input = try Pipe()
        let received = NIOLockedValueBox<[UInt8]>([])
        reader.start(threadNamed: "peerscan-test") {
            try? reader.loop(orThrow: pollFailure, prepare: { ReaderThread.Interest([Watched(input.readEnd)]) }) {
                ready in
                if ready == [.readable] { received.withLockedValue { $0.append(input.read()) } }
            }
        }
        input.write(1)
        input.write(2)
        #expect(await eventually { received.withLockedValue { $0 } == [1, 2] })
        #expect(await reader.join(within: .milliseconds(1)) == false, "the thread waits on")
        reader.stop()
        #expect(await reader.join(within: .seconds(30)), "stop ended the thread")
        #expect(reader.isStopRequested)
    }

    @Test func theTimeoutHandsOverNoEvents() async throws {
        let reader = try ReaderThread { ReadFailure(operation: "eventfd", errno: $0) }
        let idle = try Pipe()
        let timeouts = NIOLockedValueBox(0)
        try await reader.run(threadNamed: "peerscan-test") {
            try reader.loop(
                orThrow: pollFailure,
                prepare: {
                    timeouts.withLockedValue { $0 } < 3
                        ? ReaderThread.Interest([Watched(idle.readEnd)], timeout: .zero) : nil
                }
            ) { ready in
                #expect(ready == [[]])
                timeouts.withLockedValue { $0 += 1 }
            }
        }
        #expect(timeouts.withLockedValue { $0 } == 3, "three timeouts, then prepare ended the loop")
    }

    @Test func severalDescriptorsAreHandedOverInOrder() async throws {
        let reader = try ReaderThread { ReadFailure(operation: "eventfd", errno: $0) }
        let pipes = [try Pipe(), try Pipe(), try Pipe()]
        let seen = NIOLockedValueBox<[[PollEvents]]>([])
        pipes[2].write(9)
        try await reader.run(threadNamed: "peerscan-test", handing: pipes) { pipes in
            try reader.loop(orThrow: pollFailure, prepare: { ReaderThread.Interest(pipes.map { Watched($0.readEnd) }) })
            { ready in
                seen.withLockedValue { $0.append(ready) }
                for (pipe, events) in zip(pipes, ready) where events.contains(.readable) { _ = pipe.read() }
                if seen.withLockedValue({ $0.count }) == 1 { pipes[0].write(1) } else { reader.stop() }
            }
        }
        #expect(seen.withLockedValue { $0 } == [[[], [], .readable], [.readable, [], []]])
    }

    @Test func cancellingTheAwaitingTaskStopsTheThread() async throws {
        let reader = try ReaderThread { ReadFailure(operation: "eventfd", errno: $0) }
        let idle = try Pipe()
        let polls = NIOLockedValueBox(0)
        let running = Task {
            try await reader.run(threadNamed: "peerscan-test") {
                try reader.loop(orThrow: pollFailure) {
                    polls.withLockedValue { $0 += 1 }
                    return ReaderThread.Interest([Watched(idle.readEnd)])
                } handle: { _ in
                }
            }
        }
        #expect(await eventually { polls.withLockedValue { $0 } == 1 }, "the thread waits in poll")
        running.cancel()
        let ended = await eventually(within: .seconds(10)) { reader.isStopRequested }
        try await running.value
        #expect(ended)
        #expect(polls.withLockedValue { $0 } == 1, "one poll, ended by the wakeup alone")
    }

    @Test func aTaskCancelledBeforeTheThreadStartsStillEndsIt() async throws {
        let reader = try ReaderThread { ReadFailure(operation: "eventfd", errno: $0) }
        let idle = try Pipe()
        let running = Task {
            withUnsafeCurrentTask { $0?.cancel() }  // before run: the stop is sent before the thread exists
            try await reader.run(threadNamed: "peerscan-test") {
                try reader.loop(orThrow: pollFailure, prepare: { ReaderThread.Interest([Watched(idle.readEnd)]) }) {
                    _ in
                }
            }
        }
        try await running.value
        #expect(reader.isStopRequested)
    }

    @Test func aSignalRunsOnWakeWhichDecidesWhetherToGoOn() async throws {
        let reader = try ReaderThread { ReadFailure(operation: "eventfd", errno: $0) }
        let wakes = NIOLockedValueBox(0)
        reader.signal()
        try await reader.run(threadNamed: "peerscan-test") {
            try reader.loop(orThrow: pollFailure, prepare: { ReaderThread.Interest([]) }) {
                let count = wakes.withLockedValue { count in
                    count += 1
                    return count
                }
                if count == 1 { reader.signal() }  // a command, not a stop: go on
                return count < 2
            } handle: { _ in
            }
        }
        #expect(wakes.withLockedValue { $0 } == 2)
        #expect(!reader.isStopRequested)
    }

    @Test func aReadErrorEndsTheRunWithTheBodysTypedError() async throws {
        let reader = try ReaderThread { ReadFailure(operation: "eventfd", errno: $0) }
        let input = try Pipe()
        input.write(1)
        do throws(ReadFailure) {
            try await reader.run(threadNamed: "peerscan-test") { () throws(ReadFailure) in
                let ready = try reader.wakeup.wait(for: [Watched(input.readEnd)], timeout: nil, orThrow: pollFailure)
                if ready == [.readable] { throw ReadFailure(operation: "receive", errno: EIO) }
            }
            Issue.record("the run returned instead of throwing")
        } catch {
            // `error` is a ReadFailure by its static type: run(threadNamed:) rethrows the body's type.
            #expect(error == ReadFailure(operation: "receive", errno: EIO))
        }
    }

    @Test func aLoopHandsOnWhatItsHandlerThrows() async throws {
        let reader = try ReaderThread { ReadFailure(operation: "eventfd", errno: $0) }
        let input = try Pipe()
        input.write(1)
        await #expect(throws: ReadFailure(operation: "receive", errno: EIO)) {
            try await reader.run(threadNamed: "peerscan-test") {
                try reader.loop(orThrow: pollFailure, prepare: { ReaderThread.Interest([Watched(input.readEnd)]) }) {
                    _ in throw ReadFailure(operation: "receive", errno: EIO)
                }
            }
        }
        #expect(await reader.join(within: .seconds(30)), "the thread ended")
    }
}
