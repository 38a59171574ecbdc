// The store's subscriptions: subscribing, ending them all, and the subscribers each published update goes to.

import AsyncPrimitives
import NIOConcurrencyHelpers
import PeerScanModel

/// A subscription: where it starts, and a queue of every later update.
///
/// The subscriber starts from ``snapshot`` at ``sequence``; updates after ``sequence`` arrive in ``updates``, in
/// order, with no gap and no duplicate. With a limit, a batch with `dropped > 0` means the subscriber fell behind and
/// must start over from ``SnapshotStore/current()``. It ends when ``cancel()`` is called or the store ends all
/// subscriptions (``SnapshotStore/finishSubscriptions()``).
public struct Subscription: Sendable {
    /// The snapshot at ``sequence``.
    public var snapshot: ScanSnapshot
    /// The sequence number of ``snapshot``.
    public var sequence: UInt64
    /// Every update after ``sequence``.
    public var updates: DrainingQueue<StoreUpdate>
    /// Ends the subscription.
    public let cancel: @Sendable () -> Void
}

extension SnapshotStore {
    /// Subscribes: returns the current snapshot and sequence, and a queue of every later update.
    ///
    /// - Parameter limit: The most updates queued for this subscriber, beyond which they are dropped (see
    ///   ``Subscription``); `nil` for no limit (the subscriber must then read promptly).
    public func subscribe(limit: Int? = nil) -> Subscription {
        let queue = DrainingQueue<StoreUpdate>(limit: limit)
        let id = subscribers.add(queue)
        return Subscription(
            snapshot: snapshot,
            sequence: sequence,
            updates: queue,
            cancel: { [subscribers] in
                subscribers.remove(id)
                queue.finish()
            }
        )
    }

    /// Ends every subscription (at shutdown): their queues finish once drained.
    public func finishSubscriptions() {
        subscribers.finishAll()
    }
}

/// The store's subscribers. A class around a lock, so that a subscriber can be removed synchronously, from any
/// thread (a connection that ends, a cancelled task).
final class Subscribers: Sendable {
    private let queues = NIOLockedValueBox<(next: Int, all: [Int: DrainingQueue<StoreUpdate>])>((0, [:]))

    func add(_ queue: DrainingQueue<StoreUpdate>) -> Int {
        queues.withLockedValue { state in
            defer { state.next += 1 }
            state.all[state.next] = queue
            return state.next
        }
    }

    func remove(_ id: Int) {
        _ = queues.withLockedValue { $0.all.removeValue(forKey: id) }
    }

    func yield(_ update: StoreUpdate) {
        for queue in queues.withLockedValue({ Array($0.all.values) }) { queue.push(update) }
    }

    func finishAll() {
        let all = queues.withLockedValue { state in
            defer { state.all = [:] }
            return Array(state.all.values)
        }
        for queue in all { queue.finish() }
    }
}
