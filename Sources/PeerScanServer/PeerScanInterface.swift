import Foundation
import Logging
import PeerScanCore
import PeerScanModel
import Varlink
import VarlinkServer

/// What the daemon remembers of devices (its registry), as the interface reads it.
public struct DeviceMemory: Sendable {
    /// Every device remembered, most recently seen first.
    public var knownDevices: @Sendable () -> [PeerScanWire.KnownDevice]
    /// One device's history, or `nil`.
    public var device: @Sendable (DeviceID) -> PeerScanWire.KnownDevice?
    /// Forgets a device and its history; returns whether it was known.
    public var forget: @Sendable (DeviceID) async -> Bool

    /// Creates the access.
    public init(
        knownDevices: @escaping @Sendable () -> [PeerScanWire.KnownDevice],
        device: @escaping @Sendable (DeviceID) -> PeerScanWire.KnownDevice?,
        forget: @escaping @Sendable (DeviceID) async -> Bool
    ) {
        self.knownDevices = knownDevices
        self.device = device
        self.forget = forget
    }
}

/// The daemon's side of `io.peerscan`: answers GetSnapshot, Monitor and SetScanning from the store, and GetDevice,
/// ListKnownDevices and ForgetDevice from its memory of devices.
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
    private let memory: DeviceMemory?

    /// Creates the interface.
    ///
    /// - Parameters:
    ///   - store: Where snapshots and changesets come from.
    ///   - epoch: This run of the daemon (a new value every start).
    ///   - history: The recent changesets clients resume from; the store must record every update in it
    ///     (``SnapshotStore``'s `recordUpdate`), with this `epoch`.
    ///   - controlGroup: The group whose members may call SetScanning (root always may); `nil` for root only.
    ///   - clientQueueLimit: How many changesets are queued for a Monitor client before it is resynced.
    ///   - memory: What the daemon remembers of devices; `nil` for none (GetDevice finds nothing).
    ///   - setScanning: Switches scanning and returns the sequence at which the switch is in the snapshot.
    public init(
        store: SnapshotStore,
        epoch: String,
        history: ChangeHistory,
        controlGroup: String?,
        clientQueueLimit: Int = 256,
        memory: DeviceMemory? = nil,
        setScanning: @escaping @Sendable (Bool) async -> UInt64
    ) {
        self.memory = memory
        self.store = store
        self.history = history
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
            try authorize("SetScanning", "switching scanning", context: context)
            context.logger.info("client set scanning", metadata: ["enabled": "\(enabled)"])
            try await context.reply(PeerScanWire.SetScanningReply(sequence: await setScanning(enabled)))
        case "GetDevice":
            let id = try deviceID(call)
            guard let known = memory?.device(id) else { throw deviceNotFound(id) }
            let item = await store.current().snapshot.item(withIdentifier: id)
            try await context.reply(PeerScanWire.GetDeviceReply(device: item, history: known))
        case "ListKnownDevices":
            try await context.reply(PeerScanWire.ListKnownDevicesReply(devices: memory?.knownDevices() ?? []))
        case "ForgetDevice":
            let id = try deviceID(call)
            try authorize("ForgetDevice", "forgetting devices", context: context)
            guard await memory?.forget(id) == true else { throw deviceNotFound(id) }
            context.logger.notice("client forgot device", metadata: ["id": "\(id)"])
            try await context.reply(EmptyReply())
        default:
            throw VarlinkError.methodNotFound(call.method)
        }
    }

    /// Throws `PermissionDenied` unless the caller is root or in the control group.
    private func authorize(_ method: String, _ action: String, context: VarlinkCallContext) throws {
        guard context.peer?.isRootOrMember(of: controlGroup) != true else { return }
        context.logger.notice("client denied", metadata: ["method": "\(method)"])
        throw VarlinkError(
            PeerScanWire.permissionDeniedError,
            parameters: ["reason": "\(action) needs root or membership of group \(controlGroup ?? "root")"]
        )
    }

    /// The `id` parameter of GetDevice and ForgetDevice.
    private func deviceID(_ call: VarlinkCall) throws -> DeviceID {
        let text = try call.parameters(as: PeerScanWire.DeviceParameters.self).id
        guard let uuid = UUID(uuidString: text) else { throw VarlinkError.invalidParameter("id") }
        return DeviceID(uuid)
    }

    private func deviceNotFound(_ id: DeviceID) -> VarlinkError {
        VarlinkError(PeerScanWire.deviceNotFoundError, parameters: ["id": "\(id)"])
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

/// A reply without parameters.
private struct EmptyReply: Encodable {}
