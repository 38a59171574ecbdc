import Foundation
import Logging
import PeerScanCore
import PeerScanModel
import Varlink
import VarlinkServer

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
    private let history: ChangeHistory

    /// Creates the interface.
    ///
    /// - Parameters:
    ///   - store: Where snapshots and changesets come from.
    ///   - epoch: This run of the daemon (a new value every start).
    ///   - controlGroup: The group whose members may call SetScanning (root always may); `nil` for root only.
    ///   - clientQueueLimit: How many changesets are queued for a Monitor client before it is resynced.
    ///   - historyLimit: How many recent changesets are kept for clients that resume (at most 16 MiB of them).
    ///   - setScanning: Switches scanning and returns the sequence at which the switch is in the snapshot.
    public init(
        store: SnapshotStore,
        epoch: String,
        controlGroup: String?,
        clientQueueLimit: Int = 256,
        historyLimit: Int = 1024,
        setScanning: @escaping @Sendable (Bool) async -> UInt64
    ) {
        self.store = store
        self.history = ChangeHistory(epoch: epoch, countLimit: historyLimit)
        store.observe { [history] update in history.record(update) }
        self.epoch = epoch
        self.controlGroup = controlGroup
        self.clientQueueLimit = clientQueueLimit
        self.setScanning = setScanning
    }

    public func handle(_ call: VarlinkCall, context: VarlinkCallContext) async throws {
        switch call.methodName {
        case "GetSnapshot":
            await store.waitUntilInitialBrowseSettled()
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
        // A fresh daemon's first snapshot must not lack devices merely not rediscovered yet.
        await store.waitUntilInitialBrowseSettled()
        let since = parameters.epoch == epoch ? parameters.since : nil
        let subscription = await store.subscribe(limit: clientQueueLimit)
        defer { subscription.cancel() }
        guard context.call.more else {
            try await context.reply(snapshotReply(subscription.snapshot, sequence: subscription.sequence, kind: .final))
            return
        }
        // The history observes the store synchronously, so it holds every changeset up to the subscription's.
        let resumed = since.flatMap { history.entries(after: $0, through: subscription.sequence) }
        var sequence = subscription.sequence
        if let resumed {
            context.logger.info(
                "client resumed",
                metadata: ["since": "\(since ?? 0)", "changesets": "\(resumed.count)"]
            )
            for entry in resumed { try await context.reply(entry.reply) }
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

    /// Sends one changeset; its reply is prepared once for all clients (by the history).
    private func send(_ update: StoreUpdate, context: VarlinkCallContext) async throws {
        try await context.reply(history.reply(for: update))
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
