import Foundation
import Logging
import MonitoringLog
import NIOCore
import PeerScanCore
import PeerScanModel
import Varlink
import VarlinkServer

/// The interface's access to the devices: the registry's records, read as domain values (which the interface turns
/// into their wire form), and the scan service, which takes a person's edits to the store.
public struct DeviceAccess: Sendable {
    /// Every device remembered, most recently seen first.
    public var knownDevices: @Sendable () -> [KnownDeviceRecord]
    /// One device's history, or `nil`.
    public var device: @Sendable (DeviceID) -> KnownDeviceRecord?
    /// Queues a command for the store (``ScanService/submit(_:)``); returns `false` once the daemon stops.
    public var submit: @Sendable (StoreInput) -> Bool

    /// Creates the access.
    public init(
        knownDevices: @escaping @Sendable () -> [KnownDeviceRecord],
        device: @escaping @Sendable (DeviceID) -> KnownDeviceRecord?,
        submit: @escaping @Sendable (StoreInput) -> Bool = { _ in false }
    ) {
        self.knownDevices = knownDevices
        self.device = device
        self.submit = submit
    }

    /// Applies a person's edit of the devices and returns its reply once the change is in the snapshot; `nil` once
    /// the daemon stops.
    public func edit<Reply: Sendable>(_ make: (@escaping DeviceEdit.Reply<Reply>) -> DeviceEdit) async -> Reply? {
        await request { .edit(make($0)) }
    }

    /// Queues a command built around its reply and returns the reply (``StoreInput/request(_:submit:)``); `nil` once
    /// the daemon stops.
    public func request<Reply: Sendable>(_ make: (@escaping @Sendable (Reply) -> Void) -> StoreInput) async -> Reply? {
        await StoreInput.request(make, submit: submit)
    }
}

/// The daemon's side of `io.peerscan`: answers GetSnapshot, Monitor and SetScanning from the store, GetStatistics
/// from what the daemon counts (a closure the composition root makes), GetDevice and
/// ListKnownDevices from the registry, a person's edits (ForgetDevice, SetDeviceLabel, MergeDevices, SplitDevice,
/// SetDeviceIRK) through the scan service to the store, the Wi-Fi baseline's methods (PeerScanInterface+WiFi), and the
/// alerts' (PeerScanInterface+Alerts).
///
/// Every Monitor call gets a bounded queue (``clientQueueLimit`` changesets). A client that stops reading never
/// slows the others or grows memory: when its queue overflows, its queued changesets are dropped and, once it reads
/// again, it gets one reply with the current snapshot (`resync: true`) and continues from there.
public struct PeerScanInterface: VarlinkInterface {
    public let name = PeerScanWire.interfaceName
    public let definition = PeerScanWire.definition

    let store: SnapshotStore
    private let setScanning: @Sendable (Bool) async -> UInt64
    private let epoch: String
    private let controlGroup: String?
    private let clientQueueLimit: Int
    private let history: ChangeHistory
    let devices: DeviceAccess?
    private let statistics: (@Sendable (_ varlinkConnections: Int) -> PeerScanWire.StatisticsReply)?
    let alerts: AlertAccess?

    /// Creates the interface.
    ///
    /// - Parameters:
    ///   - store: Where snapshots and changesets come from.
    ///   - epoch: This run of the daemon (a new value every start).
    ///   - history: The recent changesets clients resume from; the store must record every update in it
    ///     (``SnapshotStore``'s `recordUpdate`), with this `epoch`.
    ///   - controlGroup: The group whose members may call SetScanning, SetDeviceLabel and ForgetDevice (root always
    ///     may); `nil` for root only.
    ///   - clientQueueLimit: How many changesets are queued for a Monitor client before it is resynced.
    ///   - devices: The registry's devices and the way to edit them; `nil` for none (GetDevice finds nothing).
    ///   - statistics: GetStatistics's reply, given the connections open now; `nil` for a daemon without them
    ///     (GetStatistics then answers with nothing counted).
    ///   - alerts: The alerts' outbox and rules; `nil` for none (their methods answer NoAlertSender).
    ///   - setScanning: Switches scanning and returns the sequence at which the switch is in the snapshot.
    public init(
        store: SnapshotStore,
        epoch: String,
        history: ChangeHistory,
        controlGroup: String?,
        clientQueueLimit: Int = 256,
        devices: DeviceAccess? = nil,
        statistics: (@Sendable (_ varlinkConnections: Int) -> PeerScanWire.StatisticsReply)? = nil,
        alerts: AlertAccess? = nil,
        setScanning: @escaping @Sendable (Bool) async -> UInt64
    ) {
        self.devices = devices
        self.statistics = statistics
        self.alerts = alerts
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
        case "GetStatistics":
            let connections = context.openConnections
            try await context.reply(
                statistics?(connections)
                    ?? PeerScanWire.StatisticsReply(
                        probeRoundDurations: nil,
                        addressConflicts: 0,
                        evilTwinWarnings: 0,
                        clients: .init(varlink: connections, mqtt: nil),
                        process: nil
                    )
            )
        case "Monitor":
            try await monitor(call.parameters(as: PeerScanWire.MonitorParameters.self), context: context)
        case "SetScanning":
            let enabled = try call.parameters(as: PeerScanWire.SetScanningParameters.self).enabled
            try authorize("SetScanning", "switching scanning", context: context)
            context.logger.log(.clientSetScanning, ["enabled": "\(enabled)"])
            try await context.reply(PeerScanWire.SetScanningReply(sequence: await setScanning(enabled)))
        case "GetDevice":
            let id = try deviceID(call)
            guard let known = devices?.device(id) else { throw deviceNotFound(id) }
            let item = await store.current().snapshot.item(withIdentifier: id)
            try await context.reply(
                PeerScanWire.GetDeviceReply(
                    device: item,
                    history: PeerScanWire.KnownDevice(known),
                    transitions: known.transitions.map(PeerScanWire.Transition.init)
                )
            )
        case "ListKnownDevices":
            let known = devices?.knownDevices().map(PeerScanWire.KnownDevice.init) ?? []
            try await context.reply(PeerScanWire.ListKnownDevicesReply(devices: known))
        case "ForgetDevice":
            let id = try deviceID(call)
            try authorize("ForgetDevice", "forgetting devices", context: context)
            guard await devices?.edit({ .forget([id], reply: $0) })?.first == true else { throw deviceNotFound(id) }
            context.logger.log(.clientForgotDevice, ["id": "\(id)"])
            try await context.reply(PeerScanWire.ForgetDeviceReply())
        case "SetDeviceLabel":
            let parameters = try call.parameters(as: PeerScanWire.SetDeviceLabelParameters.self)
            let id = try deviceID(parameters.id)
            try authorize("SetDeviceLabel", "labelling devices", context: context)
            guard case let label?? = await devices?.edit({ .setLabel(parameters.edit, of: id, reply: $0) }) else {
                throw deviceNotFound(id)
            }
            var metadata: Logger.Metadata = ["id": "\(id)", "important": "\(label.isImportant)"]
            if let name = parameters.name { metadata["label"] = "\(name)" }
            if let note = parameters.note { metadata["note"] = "\(note)" }
            context.logger.log(.clientLabelledDevice, metadata)
            try await context.reply(PeerScanWire.SetDeviceLabelReply(label))
        case "MergeDevices":
            let parameters = try call.parameters(as: PeerScanWire.MergeDevicesParameters.self)
            let id = try deviceID(parameters.id)
            let others = try parameters.others.map { try deviceID($0, parameter: "others") }
            try authorize("MergeDevices", "merging devices", context: context)
            guard let outcome = await devices?.edit({ .merge(others, into: id, reply: $0) }) else {
                throw deviceNotFound(id)
            }
            try outcome.get(orThrow: editError)
            context.logger.log(
                .clientMergedDevices,
                ["id": "\(id)", "others": "\(others.map(\.description).joined(separator: ","))"]
            )
            try await context.reply(PeerScanWire.MergeDevicesReply())
        case "SplitDevice":
            let parameters = try call.parameters(as: PeerScanWire.SplitDeviceParameters.self)
            let id = try deviceID(parameters.id)
            guard let key = IdentityKey(typed: parameters.key) else { throw VarlinkError.invalidParameter("key") }
            try authorize("SplitDevice", "splitting devices", context: context)
            guard let outcome = await devices?.edit({ .split(key, from: id, reply: $0) }) else {
                throw deviceNotFound(id)
            }
            let newID = try outcome.get(orThrow: editError)
            context.logger.log(.clientSplitDevice, ["id": "\(id)", "key": "\(key)"])
            try await context.reply(PeerScanWire.SplitDeviceReply(id: newID.description))
        case "SetDeviceIRK":
            try await setDeviceIRK(call, context: context)
        case "ListKnownWiFiNetworks", "TrustWiFiNetwork", "UntrustWiFiNetwork":
            try await handleWiFiTrust(call, context: context)
        case "FollowAlerts", "AckAlert", "SendTestAlert", "SetAlertRule", "ListAlertRules":
            try await handleAlerts(call, context: context)
        default:
            throw VarlinkError.methodNotFound(call.method)
        }
    }

    /// SetDeviceIRK: a key of 32 hex digits (or `null`) for a known device. The key is never logged or repeated.
    private func setDeviceIRK(_ call: VarlinkCall, context: VarlinkCallContext) async throws {
        let parameters = try call.parameters(as: PeerScanWire.SetDeviceIRKParameters.self)
        let id = try deviceID(parameters.id)
        var key: IdentityResolvingKey?
        if let text = parameters.irk {
            guard let parsed = IdentityResolvingKey(hex: text) else {
                throw VarlinkError(PeerScanWire.ErrorReply.invalidIRK(reason: "an IRK is 32 hex digits"))
            }
            key = parsed
        }
        try authorize("SetDeviceIRK", "binding IRKs", context: context)
        guard let outcome = await devices?.edit({ .setIRK(key, for: id, reply: $0) }) else { throw deviceNotFound(id) }
        try outcome.get(orThrow: editError)
        context.logger.log(.clientSetDeviceIRK, ["id": "\(id)", "irk": "\(key == nil ? "removed" : "set")"])
        try await context.reply(PeerScanWire.SetDeviceIRKReply())
    }

    /// Throws `PermissionDenied` unless the caller is root or in the control group.
    func authorize(_ method: String, _ action: String, context: VarlinkCallContext) throws {
        guard context.peer?.isRootOrMember(of: controlGroup) != true else { return }
        context.logger.log(.clientDenied, ["method": "\(method)"])
        throw VarlinkError(
            PeerScanWire.ErrorReply.permissionDenied(
                reason: "\(action) needs root or membership of group \(controlGroup ?? "root")"
            )
        )
    }

    /// The `id` parameter of GetDevice and ForgetDevice.
    private func deviceID(_ call: VarlinkCall) throws -> DeviceID {
        try deviceID(try call.parameters(as: PeerScanWire.DeviceParameters.self).id)
    }

    /// A device identifier parameter (`parameter`, `id` by default).
    private func deviceID(_ text: String, parameter: String = "id") throws -> DeviceID {
        guard let uuid = UUID(uuidString: text) else { throw VarlinkError.invalidParameter(parameter) }
        return DeviceID(uuid)
    }

    private func deviceNotFound(_ id: DeviceID) -> VarlinkError {
        VarlinkError(PeerScanWire.ErrorReply.deviceNotFound(id: id))
    }

    /// The error reply of a refused merge or split.
    private func editError(_ error: DeviceEditError) -> VarlinkError {
        switch error.code {
        case .unknownDevice: deviceNotFound(error.id)
        case .sameDevice, .twoMDNSHosts, .ephemeral:
            VarlinkError(PeerScanWire.ErrorReply.cannotMerge(reason: "\(error)"))
        case .keyNotBound, .onlyKey: VarlinkError(PeerScanWire.ErrorReply.cannotSplit(reason: "\(error)"))
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
            context.logger.log(
                .clientResumed,
                ["since": "\(since ?? 0)", "changesets": "\(resumed.count)"]
            )
            for entry in resumed { try await context.reply(entry.reply) }
        } else {
            let resync = parameters.since != nil
            if resync { context.logger.log(.clientResync, ["reason": "resume-unavailable"]) }
            try await context.reply(
                snapshotReply(subscription.snapshot, sequence: sequence, kind: resync ? .resync : .first)
            )
        }
        while let batch = await subscription.updates.nextBatch() {
            if batch.dropped > 0 {
                let (snapshot, current) = await store.current()
                context.logger.log(.clientResyncOverflow, ["reason": "overflow", "dropped": "\(batch.dropped)"])
                try await context.reply(snapshotReply(snapshot, sequence: current, kind: .resync))
                sequence = current
            }
            for update in batch.elements where update.sequence > sequence {
                // Each changeset's reply is prepared once for all clients (by the history).
                let reply: VarlinkPreparedReply
                do {
                    reply = try history.reply(for: update)
                } catch {
                    // The changeset is not sent: the client gets the snapshot instead, as after an overflow (every
                    // client handles resync; an error would only make it reconnect to the same snapshot, as no
                    // client can resume across this changeset). A snapshot that cannot be encoded fails the call.
                    let (snapshot, current) = await store.current()
                    context.logger.log(.clientResyncEncodingFailed, ["reason": "encoding-failed", "error": "\(error)"])
                    try await context.reply(snapshotReply(snapshot, sequence: current, kind: .resync))
                    sequence = current
                    continue
                }
                try await context.reply(reply)
                sequence = update.sequence
            }
        }
    }

    /// A reply carrying a snapshot, prepared once per sequence and kind for all clients that ask.
    private func snapshotReply(
        _ snapshot: ScanSnapshot,
        sequence: UInt64,
        kind: ReplyCache.SnapshotKind
    ) throws -> VarlinkPreparedReply {
        try history.snapshotReplies.snapshot(sequence: sequence, kind: kind) {
            // Written straight into the frame: a 10,000-device snapshot is 4.2 MB, and a `Data` copied into the frame
            // would be held twice while a hundred clients connect.
            try VarlinkPreparedReply(continues: kind != .final) {
                (frame: inout ByteBuffer) throws(PeerScanWire.EncodingError) in
                try PeerScanWire.encodeSnapshotReply(
                    epoch: epoch,
                    sequence: sequence,
                    snapshot: snapshot,
                    resync: kind == .resync ? true : nil,
                    into: &frame
                )
            }
        }
    }
}

extension Result {
    /// The success value, or `mapping(error)` thrown.
    fileprivate func get(orThrow mapping: (Failure) -> VarlinkError) throws(VarlinkError) -> Success {
        switch self {
        case .success(let value): return value
        case .failure(let error): throw mapping(error)
        }
    }
}

extension VarlinkError {
    /// An io.peerscan error reply.
    init(_ reply: PeerScanWire.ErrorReply) { self.init(reply.name, parameters: reply.parameters) }
}
