// The eventfd and its poll(2): events per descriptor and per kind, a timeout, a signal that wins and stays.

import Glibc
import TestSupport
import Testing

@testable import AsyncPrimitives

@Suite(.timeLimit(.minutes(1))) struct ThreadWakeupTests {
    @Test func inputIsReportedForItsDescriptorOnly() throws {
        let wakeup = try ThreadWakeup { ReadFailure(operation: "eventfd", errno: $0) }
        let (first, second) = (try Pipe(), try Pipe())
        second.write(7)
        let ready = try wakeup.wait(for: [Watched(first.readEnd), Watched(second.readEnd)], timeout: nil) {
            pollFailure($0)
        }
        #expect(ready == [[], .readable])
        wakeup.signal()
        let afterSignal = try wakeup.wait(for: [Watched(second.readEnd)], timeout: nil) { pollFailure($0) }
        #expect(afterSignal == nil, "a signal wins over pending input, and stays until drained")
        wakeup.drain()
        #expect(try wakeup.wait(for: [Watched(second.readEnd)], timeout: nil) { pollFailure($0) } == [.readable])
    }

    @Test func eachDescriptorIsWatchedForTheEventsAskedFor() throws {
        let wakeup = try ThreadWakeup { ReadFailure(operation: "eventfd", errno: $0) }
        let pipe = try Pipe()
        let watched = [Watched(pipe.readEnd, for: .readable), Watched(pipe.writeEnd, for: .writable)]
        #expect(try wakeup.wait(for: watched, timeout: nil) { pollFailure($0) } == [[], .writable])
        pipe.write(1)
        let both = [Watched(pipe.readEnd, for: .readable), Watched(pipe.writeEnd, for: [.readable, .writable])]
        #expect(try wakeup.wait(for: both, timeout: nil) { pollFailure($0) } == [.readable, .writable])
    }

    @Test func aTimeoutReturnsNoEvents() throws {
        let wakeup = try ThreadWakeup { ReadFailure(operation: "eventfd", errno: $0) }
        let idle = try Pipe()
        let ready = try wakeup.wait(for: [Watched(idle.readEnd)], timeout: .milliseconds(20)) { pollFailure($0) }
        #expect(ready == [[]], "the timeout passed: no event, and not a signal")
        #expect(try wakeup.wait(for: [], timeout: .zero) { pollFailure($0) } == [])
    }

    @Test func aClosedWriteEndIsReportedAsFailedOrReadable() throws {
        let wakeup = try ThreadWakeup { ReadFailure(operation: "eventfd", errno: $0) }
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]) }
        close(ends[1])
        let ready = try wakeup.wait(for: [Watched(ends[0])], timeout: nil) { pollFailure($0) }
        #expect(ready?.first?.isDisjoint(with: [.failed, .readable]) == false, "a hang-up ends the wait")
    }

    @Test func aWaitWithATimeoutReturnsWhenSignalledAndDrains() throws {
        let wakeup = try ThreadWakeup { ReadFailure(operation: "eventfd", errno: $0) }
        wakeup.signal()
        let clock = ContinuousClock()
        let waited = clock.measure { wakeup.wait(timeout: .seconds(30)) }
        #expect(waited < .seconds(10), "signalled: no wait for the timeout")
        let idle = try Pipe()
        idle.write(1)
        #expect(try wakeup.wait(for: [Watched(idle.readEnd)], timeout: nil) { pollFailure($0) } == [.readable])
    }
}
