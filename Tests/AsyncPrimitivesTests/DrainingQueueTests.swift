// The draining queue: many producers, one consumer that takes everything pending at once.

import TestSupport
import Testing

@testable import AsyncPrimitives

/// An element pushed by one of several producers: which, and how many it pushed before.
private struct Pushed: Sendable, Equatable {
    var producer: Int
    var index: Int
}

@Suite struct DrainingQueueTests {
    @Test func givesEverythingPushedWhileTheConsumerWasBusyAsOneBatchInOrder() async {
        let queue = DrainingQueue<Int>()
        queue.push(1)
        #expect(await queue.next() == [1])
        for element in 2...5 { queue.push(element) }
        #expect(await queue.next() == [2, 3, 4, 5])
    }

    /// Starts a consumer and returns once it is waiting inside the queue (not before: a push that came first would
    /// be taken without any wait, and the test would prove nothing about waking).
    private func waitingConsumer(of queue: DrainingQueue<Int>) async -> Task<[Int]?, Never> {
        let consumer = Task { await queue.next() }
        #expect(await eventually { queue.hasWaitingConsumer }, "the consumer waits")
        return consumer
    }

    @Test(.timeLimit(.minutes(1))) func wakesAWaitingConsumer() async {
        let queue = DrainingQueue<Int>()
        let consumer = await waitingConsumer(of: queue)
        queue.push(7)
        #expect(await consumer.value == [7])
        #expect(!queue.hasWaitingConsumer)
    }

    @Test func finishingHandsOverWhatIsPendingThenNil() async {
        let queue = DrainingQueue<Int>()
        queue.push(1)
        queue.push(2)
        queue.finish()
        #expect(await queue.next() == [1, 2])
        #expect(await queue.next() == nil)
        queue.push(3)
        #expect(await queue.next() == nil, "pushes after finish are ignored")
    }

    @Test(.timeLimit(.minutes(1))) func finishingWakesAWaitingConsumerWithNil() async {
        let queue = DrainingQueue<Int>()
        let consumer = await waitingConsumer(of: queue)
        queue.finish()
        #expect(await consumer.value == nil)
    }

    @Test(.timeLimit(.minutes(1))) func aCancelledWaitReturnsNilAndTheQueueKeepsWorking() async {
        let queue = DrainingQueue<Int>()
        let consumer = await waitingConsumer(of: queue)
        consumer.cancel()
        #expect(await consumer.value == nil)
        #expect(!queue.hasWaitingConsumer, "the cancelled wait is gone")
        queue.push(1)
        #expect(await queue.next() == [1])
    }

    @Test func aFullBoundedQueueDropsWhatIsPendingAndSaysHowMuch() async {
        let queue = DrainingQueue<Int>(limit: 3)
        for element in 1...3 { queue.push(element) }
        queue.push(4)  // over the limit: 1, 2, 3 and 4 are dropped
        queue.push(5)
        let batch = await queue.nextBatch()
        #expect(batch?.elements == [5])
        #expect(batch?.dropped == 4)
        queue.push(6)
        #expect(await queue.nextBatch()?.dropped == 0)
    }

    // One consumer only: a second concurrent wait would strand the first, so it traps instead.
    @Test func aSecondWaitingConsumerIsAProgrammingError() async {
        await #expect(processExitsWith: .failure) {
            let queue = DrainingQueue<Int>()
            let first = Task { await queue.next() }
            while !queue.hasWaitingConsumer { await Task.yield() }
            _ = await queue.next()
            _ = await first.value
        }
    }

    @Test func aConsumerCancelledBeforeItAsksGetsNil() async {
        let queue = DrainingQueue<Int>()
        let consumer = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await queue.next()
        }
        #expect(await consumer.value == nil)
    }

    @Test func concurrentProducersLoseNothingAndKeepTheirOrder() async {
        let producers = 8
        let pushesEach = 5_000
        let queue = DrainingQueue<Pushed>()
        let (received, batches) = await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withTaskGroup(of: Void.self) { pushing in
                    for producer in 0..<producers {
                        pushing.addTask {
                            for index in 0..<pushesEach { queue.push(Pushed(producer: producer, index: index)) }
                        }
                    }
                }
                queue.finish()
            }
            var received: [Pushed] = []
            var batches = 0
            while let batch = await queue.next() {
                #expect(!batch.isEmpty)
                received += batch
                batches += 1
            }
            return (received, batches)
        }
        #expect(received.count == producers * pushesEach)
        #expect(batches >= 1)
        for producer in 0..<producers {
            #expect(received.filter { $0.producer == producer }.map(\.index) == Array(0..<pushesEach))
        }
    }
}
