import Foundation
import Logging
import PeerScanCore
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
            try await context.reply(PeerScanWire.SnapshotReply(epoch: epoch, sequence: sequence, snapshot: snapshot))
        case "Monitor":
            try await monitor(call.parameters(as: PeerScanWire.MonitorParameters.self), context: context)
        case "SetScanning":
            let enabled = try call.parameters(as: PeerScanWire.SetScanningParameters.self).enabled
            guard context.peer?.isRootOrMember(of: controlGroup) == true else {
                context.logger.notice("client denied", metadata: ["method": "SetScanning"])
                throw VarlinkError(
                    PeerScanWire.permissionDeniedError,
                    parameters: ["reason": "switching scanning needs root or membership of group \(controlGroup ?? "root")"]
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
            try await context.reply(
                PeerScanWire.SnapshotReply(epoch: epoch, sequence: subscription.sequence, snapshot: subscription.snapshot)
            )
            return
        }
        var sequence = subscription.sequence
        if let resumed = subscription.resumed {
            context.logger.info("client resumed", metadata: ["since": "\(since ?? 0)", "changesets": "\(resumed.count)"])
            for update in resumed { try await send(update, context: context) }
        } else {
            let resync: Bool? = parameters.since != nil ? true : nil
            if resync == true { context.logger.info("client resync", metadata: ["reason": "resume-unavailable"]) }
            try await context.reply(
                PeerScanWire.MonitorReply(epoch: epoch, sequence: sequence, snapshot: subscription.snapshot, resync: resync),
                continues: true
            )
        }
        while let batch = await subscription.updates.nextBatch() {
            if batch.dropped > 0 {
                let (snapshot, current) = await store.current()
                context.logger.notice("client resync", metadata: ["reason": "overflow", "dropped": "\(batch.dropped)"])
                try await context.reply(
                    PeerScanWire.MonitorReply(epoch: epoch, sequence: current, snapshot: snapshot, resync: true),
                    continues: true
                )
                sequence = current
            }
            for update in batch.elements where update.sequence > sequence {
                try await send(update, context: context)
                sequence = update.sequence
            }
        }
    }

    /// Sends one changeset, encoded once for all clients.
    private func send(_ update: StoreUpdate, context: VarlinkCallContext) async throws {
        var parameters = Data(#"{"changes":"#.utf8)
        parameters.append(update.encodedChanges)
        parameters.append(Data(#","epoch":"\#(epoch)","sequence":\#(update.sequence)}"#.utf8))
        try await context.reply(encodedParameters: parameters, continues: true)
    }
}
