// The draining queue: many producers, one consumer that takes everything pending at once.

import AsyncPrimitives
import Testing

@testable import PeerScanCore

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

    @Test func wakesAWaitingConsumer() async {
        let queue = DrainingQueue<Int>()
        let consumer = Task { await queue.next() }
        queue.push(7)
        #expect(await consumer.value == [7])
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

    @Test func finishingWakesAWaitingConsumerWithNil() async {
        let queue = DrainingQueue<Int>()
        let consumer = Task { await queue.next() }
        queue.finish()
        #expect(await consumer.value == nil)
    }

    @Test func aCancelledWaitReturnsNilAndTheQueueKeepsWorking() async {
        let queue = DrainingQueue<Int>()
        let consumer = Task { await queue.next() }
        consumer.cancel()
        #expect(await consumer.value == nil)
        queue.push(1)
        #expect(await queue.next() == [1])
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
        #expect(batches <= received.count)
        for producer in 0..<producers {
            #expect(received.filter { $0.producer == producer }.map(\.index) == Array(0..<pushesEach))
        }
    }
}
