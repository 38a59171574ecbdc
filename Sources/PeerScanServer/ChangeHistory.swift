import DequeModule
import Foundation
import NIOConcurrencyHelpers
import PeerScanCore
import PeerScanModel
import VarlinkServer

/// The recent changesets, each encoded once as its Monitor reply: sent on by every client that follows the stream,
/// and replayed to a client that resumes after a reconnection (`Monitor` with `epoch` and `since`).
///
/// The store records every update in it as it publishes it (``SnapshotStore``'s `recordUpdate`), so it has every
/// update up to the store's sequence as soon as the store publishes it. It keeps at most ``countLimit`` changesets and
/// ``byteLimit`` bytes of them, always at least the newest.
///
/// ## The byte budget
/// A resume is worth it while the changesets it replays are smaller than the snapshot the client would get instead.
/// 1,024 ordinary changesets (one device each, 0.5–4 KiB) fit in the default 4 MiB; a mass changeset (scanning
/// switched on or off, 10,000 devices inserted: 4.4 MB) is as large as the snapshot itself (4.2 MB), so holding it
/// for resumes only pins memory: with 4 MiB it leaves the window with the next changeset, and a client that
/// reconnects from before it gets the snapshot (`resync: true`) — no more bytes than the replay.
///
/// It also holds the snapshot replies of the latest sequence (``snapshotReplies``), and drops them when it records a
/// newer changeset: a client that connects later needs a newer snapshot, and a 10,000-device snapshot is 4.2 MB.
public final class ChangeHistory: Sendable {
    /// One recorded changeset.
    struct Entry: Sendable {
        /// The sequence the changeset leads to.
        var sequence: UInt64
        /// Its Monitor reply.
        var reply: VarlinkPreparedReply
    }

    private struct State {
        /// Consecutive sequences, oldest first.
        var entries: Deque<Entry> = []
        var bytes = 0
    }

    /// The most changesets kept.
    let countLimit: Int
    /// The most bytes of encoded replies kept.
    let byteLimit: Int
    /// The daemon run whose changesets it holds.
    public let epoch: String
    private let state = NIOLockedValueBox(State())
    /// The snapshot replies of the latest sequence, encoded once for all the clients that ask for them.
    let snapshotReplies = ReplyCache()

    /// The default ``countLimit``: the resume window documented in docs/protocol.md.
    public static let defaultCountLimit = 1024
    /// The default ``byteLimit`` (see "The byte budget" above).
    public static let defaultByteLimit = 4 << 20

    /// Creates an empty history.
    ///
    /// - Parameters:
    ///   - epoch: The daemon's epoch, part of every reply.
    ///   - countLimit: The most changesets kept.
    ///   - byteLimit: The most bytes of encoded replies kept.
    public init(epoch: String, countLimit: Int = defaultCountLimit, byteLimit: Int = defaultByteLimit) {
        self.epoch = epoch
        self.countLimit = countLimit
        self.byteLimit = byteLimit
    }

    /// Encodes an update's reply and keeps it, dropping the oldest beyond the limits.
    ///
    /// A changeset that cannot be encoded is not kept, so no client can resume across it (what is kept must be
    /// consecutive); a client that follows the stream meets the error in ``reply(for:)``.
    ///
    /// - Complexity: O(n) in the size of the changeset (its encoding); amortized O(1) otherwise.
    public func record(_ update: StoreUpdate) {
        snapshotReplies.discard(before: update.sequence)
        let entry: Entry
        do {
            entry = Entry(sequence: update.sequence, reply: try Self.reply(for: update, epoch: epoch))
        } catch {
            return  // the next one recorded follows a gap, and the history starts over
        }
        state.withLockedValue { state in
            if let last = state.entries.last, last.sequence + 1 != entry.sequence {
                state.entries.removeAll()  // a gap: what is kept must be consecutive
                state.bytes = 0
            }
            state.entries.append(entry)
            state.bytes += entry.reply.size
            while state.entries.count > countLimit || (state.bytes > byteLimit && state.entries.count > 1) {
                state.bytes -= state.entries.removeFirst().reply.size
            }
        }
    }

    /// The reply of the changeset that leads to `sequence`, encoded for any client: from the history if it still
    /// holds it, else encoded now.
    ///
    /// - Throws: ``PeerScanWire/EncodingError`` if it is not held and cannot be encoded.
    /// - Complexity: O(1) when held.
    func reply(for update: StoreUpdate) throws(PeerScanWire.EncodingError) -> VarlinkPreparedReply {
        let held = state.withLockedValue { state -> VarlinkPreparedReply? in
            guard let first = state.entries.first?.sequence, update.sequence >= first else { return nil }
            let offset = Int(update.sequence - first)
            return offset < state.entries.count ? state.entries[offset].reply : nil
        }
        if let held { return held }
        return try Self.reply(for: update, epoch: epoch)
    }

    /// The changesets after `since` up to and including `sequence`, if the history holds every one of them;
    /// `nil` if it does not (the client must start from a snapshot).
    ///
    /// - Complexity: O(k), k the number of changesets returned.
    func entries(after since: UInt64, through sequence: UInt64) -> [Entry]? {
        guard since <= sequence else { return nil }
        if since == sequence { return [] }
        return state.withLockedValue { state in
            guard let first = state.entries.first?.sequence, let last = state.entries.last?.sequence,
                first <= since + 1, last >= sequence
            else { return nil }
            let start = Int(since + 1 - first)
            let end = Int(sequence - first)
            return Array(state.entries[start...end])
        }
    }

    /// The number of changesets held.
    var count: Int { state.withLockedValue { $0.entries.count } }

    /// The bytes of the encoded replies held (their size on the wire), for the benchmarks' memory figures.
    public var bytes: Int { state.withLockedValue { $0.bytes } }

    /// The Monitor reply of a changeset (PeerScanModel writes its bytes).
    static func reply(for update: StoreUpdate, epoch: String) throws(PeerScanWire.EncodingError) -> VarlinkPreparedReply
    {
        let parameters = try PeerScanWire.encodeChangesReply(
            epoch: epoch,
            sequence: update.sequence,
            changes: update.changes
        )
        return VarlinkPreparedReply(encodedParameters: parameters, continues: true)
    }
}
