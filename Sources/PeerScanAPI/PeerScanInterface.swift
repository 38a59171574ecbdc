import AsyncPrimitives
import Foundation
import Logging
import PeerScanCore
import Synchronization
import Varlink

/// The daemon's side of `io.peerscan`: answers GetSnapshot, Monitor and SetScanning from the store.
///
/// Every Monitor call gets a bounded queue (``clientQueueLimit`` changesets). A client that stops reading never
/// slows the others or grows memory: when its queue overflows, its queued changesets are dropped and, once it reads
/// again, it gets one reply with the current snapshot (`resync: true`) and continues from there.
public struct PeerScanInterface: VarlinkInterface {
    public let name = PeerScanWire.interfaceName
    public let definition = PeerScanWire.definition

    private let store: SnapshotStore
    private let setScanning: @Sendable (Bool) async -> UInt64
    private let epoch: String
    private let controlGroup: String?
    private let clientQueueLimit: Int
    private let replies = ReplyCache()

    /// Creates the interface.
    ///
    /// - Parameters:
    ///   - store: Where snapshots and changesets come from.
    ///   - epoch: This run of the daemon (a new value every start).
    ///   - controlGroup: The group whose members may call SetScanning (root always may); `nil` for root only.
    ///   - clientQueueLimit: How many changesets are queued for a Monitor client before it is resynced.
    ///   - setScanning: Switches scanning and returns the sequence at which the switch is in the snapshot.
    public init(
        store: SnapshotStore,
        epoch: String,
        controlGroup: String?,
        clientQueueLimit: Int = 256,
        setScanning: @escaping @Sendable (Bool) async -> UInt64
    ) {
        self.store = store
        self.epoch = epoch
        self.controlGroup = controlGroup
        self.clientQueueLimit = clientQueueLimit
        self.setScanning = setScanning
    }

    public func handle(_ call: VarlinkCall, context: VarlinkCallContext) async throws {
        switch call.methodName {
        case "GetSnapshot":
            let (snapshot, sequence) = await store.current()
            try await context.reply(snapshotReply(snapshot, sequence: sequence, kind: .final))
        case "Monitor":
            try await monitor(call.parameters(as: PeerScanWire.MonitorParameters.self), context: context)
        case "SetScanning":
            let enabled = try call.parameters(as: PeerScanWire.SetScanningParameters.self).enabled
            guard context.peer?.isRootOrMember(of: controlGroup) == true else {
                context.logger.notice("client denied", metadata: ["method": "SetScanning"])
                throw VarlinkError(
                    PeerScanWire.permissionDeniedError,
                    parameters: [
                        "reason": "switching scanning needs root or membership of group \(controlGroup ?? "root")"
                    ]
                )
            }
            context.logger.info("client set scanning", metadata: ["enabled": "\(enabled)"])
            try await context.reply(PeerScanWire.SetScanningReply(sequence: await setScanning(enabled)))
        default:
            throw VarlinkError.methodNotFound(call.method)
        }
    }

    private func monitor(_ parameters: PeerScanWire.MonitorParameters, context: VarlinkCallContext) async throws {
        let since = parameters.epoch == epoch ? parameters.since : nil
        let subscription = await store.subscribe(limit: clientQueueLimit, resumingAfter: since)
        defer { subscription.cancel() }
        guard context.call.more else {
            try await context.reply(snapshotReply(subscription.snapshot, sequence: subscription.sequence, kind: .final))
            return
        }
        var sequence = subscription.sequence
        if let resumed = subscription.resumed {
            context.logger.info(
                "client resumed",
                metadata: ["since": "\(since ?? 0)", "changesets": "\(resumed.count)"]
            )
            for update in resumed { try await send(update, context: context) }
        } else {
            let resync = parameters.since != nil
            if resync { context.logger.info("client resync", metadata: ["reason": "resume-unavailable"]) }
            try await context.reply(
                snapshotReply(subscription.snapshot, sequence: sequence, kind: resync ? .resync : .first)
            )
        }
        while let batch = await subscription.updates.nextBatch() {
            if batch.dropped > 0 {
                let (snapshot, current) = await store.current()
                context.logger.notice("client resync", metadata: ["reason": "overflow", "dropped": "\(batch.dropped)"])
                try await context.reply(snapshotReply(snapshot, sequence: current, kind: .resync))
                sequence = current
            }
            for update in batch.elements where update.sequence > sequence {
                try await send(update, context: context)
                sequence = update.sequence
            }
        }
    }

    /// Sends one changeset; its reply is prepared once for all clients.
    private func send(_ update: StoreUpdate, context: VarlinkCallContext) async throws {
        let reply = replies.changes(sequence: update.sequence) {
            var parameters = Data(#"{"changes":"#.utf8)
            parameters.append(update.encodedChanges)
            parameters.append(Data(#","epoch":"\#(epoch)","sequence":\#(update.sequence)}"#.utf8))
            return VarlinkPreparedReply(encodedParameters: parameters, continues: true)
        }
        try await context.reply(reply)
    }

    /// A reply carrying a snapshot, prepared once per sequence and kind for all clients that ask.
    private func snapshotReply(
        _ snapshot: ScanSnapshot,
        sequence: UInt64,
        kind: ReplyCache.SnapshotKind
    ) throws -> VarlinkPreparedReply {
        try replies.snapshot(sequence: sequence, kind: kind) {
            let parameters = try PeerScanWire.encodeSnapshotReply(
                epoch: epoch,
                sequence: sequence,
                snapshot: snapshot,
                resync: kind == .resync ? true : nil
            )
            return VarlinkPreparedReply(encodedParameters: parameters, continues: kind != .final)
        }
    }
}

/// Replies prepared for many clients: the snapshot replies of the latest sequence, and the recent changesets.
/// A hundred clients that connect at once share one encoded snapshot instead of holding a hundred.
private final class ReplyCache: Sendable {
    enum SnapshotKind: Hashable { case final, first, resync }

    private struct State {
        var snapshotSequence: UInt64 = .max
        var snapshots: [SnapshotKind: VarlinkPreparedReply] = [:]
        var changes: [UInt64: VarlinkPreparedReply] = [:]
    }

    private let state = Mutex(State())
    private let encoding = Mutex(())
    private let changesKept = 64

    /// The snapshot reply for a sequence, encoded once: callers that ask while it is being encoded wait for it
    /// (a hundred clients connecting at once must not encode, and hold, a hundred copies).
    func snapshot(
        sequence: UInt64,
        kind: SnapshotKind,
        make: () throws -> VarlinkPreparedReply
    ) throws -> VarlinkPreparedReply {
        try encoding.withLock { _ in
            if let cached = state.withLock({ $0.snapshotSequence == sequence ? $0.snapshots[kind] : nil }) {
                return cached
            }
            let reply = try make()
            state.withLock { state in
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

    func changes(sequence: UInt64, make: () -> VarlinkPreparedReply) -> VarlinkPreparedReply {
        if let cached = state.withLock({ $0.changes[sequence] }) { return cached }
        let reply = make()
        state.withLock { state in
            state.changes[sequence] = reply
            if state.changes.count > 2 * changesKept {
                let newest = state.changes.keys.max() ?? sequence
                state.changes = state.changes.filter { $0.key + UInt64(changesKept) > newest }
            }
        }
        return reply
    }
}
