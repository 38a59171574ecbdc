import NIOConcurrencyHelpers
import VarlinkServer

/// The snapshot replies of the latest sequence, prepared once for many clients: a hundred clients that connect at
/// once share one encoded snapshot instead of holding a hundred. (Changesets are prepared once by ``ChangeHistory``,
/// which owns this cache and empties it when the store moves past its sequence: ``discard(before:)``.)
final class ReplyCache: Sendable {
    enum SnapshotKind: Hashable { case final, first, resync }

    private struct State {
        var snapshotSequence: UInt64 = .max
        var snapshots: [SnapshotKind: VarlinkPreparedReply] = [:]
    }

    private let state = NIOLockedValueBox(State())
    private let encoding = NIOLock()

    /// The snapshot reply for a sequence, encoded once: callers that ask while it is being encoded wait for it
    /// (a hundred clients connecting at once must not encode, and hold, a hundred copies).
    func snapshot(
        sequence: UInt64,
        kind: SnapshotKind,
        make: () throws -> VarlinkPreparedReply
    ) throws -> VarlinkPreparedReply {
        try encoding.withLock {
            if let cached = state.withLockedValue({ $0.snapshotSequence == sequence ? $0.snapshots[kind] : nil }) {
                return cached
            }
            let reply = try make()
            state.withLockedValue { state in
                if state.snapshotSequence != sequence {
                    if sequence < state.snapshotSequence && state.snapshotSequence != .max { return }  // an older one
                    state.snapshotSequence = sequence
                    state.snapshots = [:]
                }
                state.snapshots[kind] = reply
            }
            return reply
        }
    }

    /// Drops the replies of sequences before `sequence`: a client that connects from now on needs a newer snapshot.
    /// Clients that are still sending a dropped reply keep its bytes until they are done.
    ///
    /// A reply encoded after this for an older sequence is kept again (until the next call), so that clients that
    /// subscribed together just before the store moved on still share one encoding.
    /// Never waits for an encoding in progress (the store calls it while publishing).
    func discard(before sequence: UInt64) {
        state.withLockedValue { state in
            guard state.snapshotSequence != .max, state.snapshotSequence < sequence else { return }
            state.snapshotSequence = .max
            state.snapshots = [:]
        }
    }

    /// The number of replies held, for tests.
    var count: Int { state.withLockedValue { $0.snapshots.count } }
}
