// Subscribers of the store: a starting point and every later update, which replayed give the store's snapshot.

import Diffable
import Discovery
import NetworkInterfaces
import PeerScanModel
import SeededRandom
import TestSupport
import Testing

@testable import PeerScanCore

/// Random store inputs over a few hosts, services and interfaces, so that instances collide, move and come back.
private struct RandomInputs {
    var generator: SeededGenerator

    private static let hosts = ["a.local", "B.local.", "c.local", "d.local", "e.local"]
    private static let names = ["Alpha", "Bravo", "Charlie", "alpha"]
    private static let types = ["_http._tcp", "_ssh._tcp"]
    private static let interfaces = ["eth0", "wlan0"]
    private static let states: [SourceState] = [.running, .running, .connecting, .failure(reason: "gone")]

    mutating func makeBatch() -> [StoreInput] {
        (0..<Int.random(in: 0...6, using: &generator)).map { _ in makeInput() }
    }

    private mutating func makeInput() -> StoreInput {
        switch Int.random(in: 0..<100, using: &generator) {
        case 0..<55:
            return .resolved(
                makeInstance(
                    pick(Self.names),
                    type: pick(Self.types),
                    host: pick(Self.hosts),
                    interface: pick(Self.interfaces),
                    ipProtocol: pick(IPProtocol.allCases),
                    addresses: ["10.0.0.\(Int.random(in: 1...3, using: &generator))"],
                    port: pick([80, 8080]),
                    txt: [TXTEntry("v", pick(["1", "2"]))]
                )
            )
        case 55..<80:
            return .removed(
                makeInstanceKey(
                    pick(Self.names),
                    type: pick(Self.types),
                    interface: pick(Self.interfaces),
                    ipProtocol: pick(IPProtocol.allCases)
                )
            )
        case 80..<88: return .source(pick(Self.states), hostName: pick([nil, "me.local"]))
        case 88..<92: return .browsingSettled
        case 92..<96: return .setScanning(Bool.random(using: &generator))
        default: return .resyncDeadline(generation: Int.random(in: 0...3, using: &generator))
        }
    }

    private mutating func pick<T>(_ choices: [T]) -> T { choices.randomElement(using: &generator)! }
}

@Suite struct SnapshotStoreSubscriptionTests {
    @Test func subscribingGivesTheCurrentSnapshotAndSequence() async {
        let store = makeStore()
        await store.apply([.resolved(makeInstance("TV", host: "tv.local"))])
        await store.apply([.resolved(makeInstance("NAS", host: "nas.local"))])
        let subscription = await store.subscribe()
        #expect(subscription.sequence == 2)
        #expect(subscription.snapshot == (await store.snapshot))
    }

    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func replayingEveryUpdateReproducesTheStoresSnapshot(seed: UInt64) async throws {
        var inputs = RandomInputs(generator: SeededGenerator(seed: seed))
        let store = makeStore()
        let early = await store.subscribe()
        var late: Subscription?
        for batch in 0..<300 {
            if batch == 150 { late = await store.subscribe() }
            await store.apply(inputs.makeBatch())
            #expect(isSortedForDisplay(await store.snapshot.devices), "batch \(batch)")
        }
        await store.finishSubscriptions()
        let final = await store.snapshot
        let finalSequence = await store.sequence
        #expect(finalSequence > 100, "the inputs change the snapshot often")

        var changes: [ScanChangeset] = []
        for subscription in [early, try #require(late)] {
            let updates = try #require(await collect(subscription.updates))
            var subscriber = ReplayingSubscriber(subscription)
            for update in updates { try subscriber.replay(update) }
            #expect(subscriber.sequence == finalSequence)
            #expect(subscriber.snapshot == final)
            changes += updates.map(\.changes)
        }
        #expect(changes.contains { !$0.itemInserts.isEmpty }, "the inputs exercise every kind of change")
        #expect(changes.contains { !$0.itemDeletes.isEmpty })
        #expect(changes.contains { !$0.itemMoves.isEmpty })
        #expect(changes.contains { $0.itemUpdates.contains { $0.item.device != nil } })
        #expect(changes.contains { !$0.sectionDeletes.isEmpty })
        #expect(changes.contains { !$0.sectionInserts.isEmpty })
    }

    @Test func subscribersJoiningWhileBatchesArriveFromAnotherTaskMissNothing() async throws {
        let store = makeStore()
        let subscriptions = await withTaskGroup(of: Void.self) { group in
            group.addTask {
                var inputs = RandomInputs(generator: SeededGenerator(seed: 42))
                for _ in 0..<300 { await store.apply(inputs.makeBatch()) }
            }
            var subscriptions: [Subscription] = []
            for _ in 0..<20 {
                subscriptions.append(await store.subscribe())
                await Task.yield()
            }
            await group.waitForAll()
            return subscriptions
        }
        await store.finishSubscriptions()
        let final = await store.snapshot
        for subscription in subscriptions {
            var subscriber = ReplayingSubscriber(subscription)
            for update in try #require(await collect(subscription.updates)) { try subscriber.replay(update) }
            #expect(subscriber.snapshot == final)
        }
    }

    @Test func everySubscriberReceivesTheSameUpdates() async throws {
        let store = makeStore()
        let first = await store.subscribe()
        let second = await store.subscribe()
        await store.apply([.resolved(makeInstance("TV", host: "tv.local"))])
        await store.apply([.setScanning(false)])
        await store.finishSubscriptions()
        let firstUpdates = try #require(await collect(first.updates))
        let secondUpdates = try #require(await collect(second.updates))
        #expect(firstUpdates.map(\.sequence) == [1, 2])
        #expect(firstUpdates.map(\.changes) == secondUpdates.map(\.changes))
    }

    @Test func finishingTheSubscriptionsEndsTheirStreams() async throws {
        let store = makeStore()
        let subscriptions = [await store.subscribe(), await store.subscribe()]
        await store.finishSubscriptions()
        for subscription in subscriptions {
            #expect(await collect(subscription.updates)?.isEmpty == true, "ended, with nothing published")
        }
        let later = await store.subscribe()
        await store.apply([.resolved(makeInstance("TV", host: "tv.local"))])
        await store.finishSubscriptions()
        #expect(try #require(await collect(later.updates)).map(\.sequence) == [1], "a later subscription works")
    }
}
