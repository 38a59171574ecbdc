// The one-shot signal: any number of waiters, released once; a cancelled waiter stops waiting.

import TestSupport
import Testing

@testable import AsyncPrimitives

@Suite(.timeLimit(.minutes(1))) struct OneShotSignalTests {
    @Test func firingReleasesEveryWaiter() async {
        let signal = OneShotSignal()
        let waiters = (0..<3).map { _ in Task { await signal.wait() } }
        #expect(await eventually { signal.waiterCount == 3 }, "all three wait")
        signal.fire()
        for waiter in waiters { await waiter.value }
        #expect(signal.waiterCount == 0)
    }

    @Test func aWaitAfterFiringReturnsAtOnce() async {
        let signal = OneShotSignal()
        signal.fire()
        signal.fire()  // firing again does nothing
        await signal.wait()
        #expect(signal.waiterCount == 0)
    }

    @Test func aCancelledWaiterStopsWaitingAndTheOthersStillWait() async {
        let signal = OneShotSignal()
        let cancelled = Task { await signal.wait() }
        let kept = Task { await signal.wait() }
        #expect(await eventually { signal.waiterCount == 2 })
        cancelled.cancel()
        await cancelled.value
        #expect(signal.waiterCount == 1, "only the cancelled waiter left")
        signal.fire()
        await kept.value
    }

    @Test func aWaiterCancelledBeforeItWaitsReturns() async {
        let signal = OneShotSignal()
        let waiter = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            await signal.wait()
        }
        await waiter.value
        #expect(signal.waiterCount == 0)
    }
}
