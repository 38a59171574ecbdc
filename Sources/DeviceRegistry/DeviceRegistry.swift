import Foundation
import Logging
import MonitoringLog
import NIOConcurrencyHelpers
internal import POSIXText
import PeerScanCore
import PeerScanModel

/// Every device peerscand has seen, present or not: its identity keys, first and last seen, names, MAC addresses and
/// addresses, kept in memory and written to an SQLite database in the state directory in batches, off the
/// changeset path.
///
/// The store hands each batch's ``DeviceRecords`` to ``record(_:at:)``, which only updates memory under a lock;
/// ``flush(now:)`` (every second, from ``RegistryService``) writes what changed in one transaction. A write that
/// fails (a full disk) is logged and retried: nothing is lost while the daemon runs, and it keeps serving from
/// memory. Queries (``knownDevices(now:)``, ``device(_:now:)``) are answered from memory.
public final class DeviceRegistry: Sendable {
    /// How often the last-seen times of the devices online are brought up to date in the database (they are exact
    /// in memory).
    public static let lastSeenPrecision: Duration = .seconds(60)

    private struct State {
        var histories: [DeviceID: DeviceHistory] = [:]
        /// The devices in the snapshot now, and whether each is online.
        var present: [DeviceID: Device] = [:]
        var dirty: Set<DeviceID> = []
        /// The dirty devices that took in another's history: their transitions are written again whole.
        var transitionsMerged: Set<DeviceID> = []
        var deleted: Set<DeviceID> = []
        var lastRefresh: Date
        var isFailing = false
        var lastFailureLogged: Date?
        var batchesWritten = 0
        /// The devices with a Bluetooth IRK: a person's (never forgotten as untouched).
        var keyed: Set<DeviceID> = []
    }

    let database: RegistryDatabase?
    /// What the store taught about Wi-Fi networks and is not written yet (DeviceRegistry+WiFi).
    let pendingNetworks: NIOLockedValueBox<PendingNetworks>
    /// The Wi-Fi evil-twin baseline at start, to seed the store's wireless table.
    public let knownNetworks: KnownNetworks
    private let state: NIOLockedValueBox<State>
    let logger: Logger
    /// The identity bindings loaded at start, to seed the store's ``DeviceIdentities``.
    public let identities: DeviceIdentities
    /// The labels loaded at start, to seed the store's ``DeviceLabels``.
    public let labels: DeviceLabels
    /// The Bluetooth IRKs loaded at start, to seed the store's resolver; and those not written yet (`nil`: removed).
    public let irks: [DeviceID: IdentityResolvingKey]
    let pendingIRKs = NIOLockedValueBox<[DeviceID: IdentityResolvingKey?]>([:])

    /// The database file, or `nil` when the registry is in memory only.
    public var path: String? { database?.path }

    /// Opens the registry at `path`, never failing: a database that cannot be used (corrupt, unreadable, written by
    /// a newer peerscan) is moved aside (`PATH.broken-TIMESTAMP`) with a log line and a fresh one is started; if
    /// none can be created, the registry lives in memory only (logged). Devices not seen for `forgetAfter` are
    /// dropped while loading; Wi-Fi networks are forgotten by ``forgetNetworks(forgetAfter:limit:now:)`` (with
    /// `forgetAfter` zero, only the baseline's are written at all).
    ///
    /// - Parameters:
    ///   - path: The database file; `nil` for a registry in memory only.
    ///   - forgetAfter: How long a device not seen is remembered.
    ///   - now: The current time.
    ///   - logger: Where problems are logged.
    public init(path: String?, forgetAfter: Duration, now: Date = Date(), logger: Logger) {
        self.logger = logger
        var database: RegistryDatabase?
        var loaded: [DeviceHistory] = []
        var networks = KnownNetworks()
        var irks: [DeviceID: IdentityResolvingKey] = [:]
        if let path {
            let directory = (path as NSString).deletingLastPathComponent
            try? FileManager.default.createDirectory(
                atPath: directory.isEmpty ? "." : directory,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o755]
            )
            do {
                let opened = try RegistryDatabase(path: path)
                loaded = try opened.loadAll()
                networks = try opened.loadKnownNetworks()
                irks = try opened.loadIRKs()
                database = opened
            } catch {
                logger.log(.registryUnusable, ["path": "\(path)", "error": "\(error)"])
                do {
                    if FileManager.default.fileExists(atPath: path) {
                        let aside = try Self.moveAside(path, now: now)
                        logger.log(.registryMovedAside, ["path": "\(path)", "path.moved": "\(aside)"])
                    }
                    database = try RegistryDatabase(path: path)
                } catch {
                    logger.log(
                        .registryUnavailable,
                        ["path": "\(path)", "error": "\(error)", "serving": "memory"]
                    )
                }
            }
        }
        self.database = database
        self.knownNetworks = networks
        self.pendingNetworks = NIOLockedValueBox(PendingNetworks(keepsSightings: forgetAfter > .zero))
        self.irks = irks
        var state = State(lastRefresh: now)
        state.keyed = Set(irks.keys)
        let horizon = Self.horizon(forgetAfter: forgetAfter, now: now)
        var bindings: [IdentityKey: DeviceID] = [:]
        var labels: [DeviceID: DeviceLabel] = [:]
        var apart: [DeviceID: Set<IdentityKey>] = [:]
        for history in loaded {
            guard history.seen.last > horizon else {
                state.deleted.insert(history.id)
                continue
            }
            state.histories[history.id] = history
            for key in history.boundKeys { bindings[key] = history.id }
            if !history.label.isEmpty { labels[history.id] = history.label }
            if !history.apartKeys.isEmpty { apart[history.id] = history.apartKeys }
        }
        self.identities = DeviceIdentities(bindings: bindings, apart: apart)
        self.labels = DeviceLabels(labels)
        self.state = NIOLockedValueBox(state)
        if let database {
            logger.log(
                .registryLoaded,
                [
                    "path": "\(database.path)", "devices": "\(state.histories.count)",
                    "forgotten": "\(state.deleted.count)",
                ]
            )
        }
    }

    // MARK: Intake (the changeset path: memory only)

    /// Takes in what a batch of the store taught: identity changes, then the devices inserted or changed, then those
    /// that left the snapshot.
    /// - Complexity: O(c) for c changes in the records (plus the keys and addresses of merged devices).
    public func record(_ records: DeviceRecords, at date: Date = Date()) {
        state.withLockedValue { state in
            for change in records.identityChanges {
                switch change {
                case .bound(let key, let id):
                    state.histories[id, default: DeviceHistory(id: id, seen: SeenSpan(at: date))].boundKeys.insert(key)
                    state.dirty.insert(id)
                case .merged(let id, let survivor):
                    guard let merged = state.histories.removeValue(forKey: id) else { continue }
                    state.histories[survivor, default: DeviceHistory(id: survivor, seen: merged.seen)].absorb(merged)
                    state.present[id] = nil
                    state.dirty.remove(id)
                    state.transitionsMerged.remove(id)
                    state.deleted.insert(id)
                    state.dirty.insert(survivor)
                    state.transitionsMerged.insert(survivor)
                case .forgotten(let id):
                    state.histories[id] = nil
                    state.dirty.remove(id)
                    state.deleted.insert(id)
                case .split(let key, let id, let newID):
                    var split = DeviceHistory(id: newID, seen: SeenSpan(at: date), boundKeys: [key])
                    if let span = state.histories[id]?.keys.removeValue(forKey: key) {
                        split.keys[key] = span
                        split.seen = span
                    }
                    state.histories[id]?.boundKeys.remove(key)
                    state.histories[id]?.apartKeys.insert(key)
                    state.histories[newID] = split
                    state.dirty.formUnion([id, newID])
                }
            }
            if !records.irks.isEmpty { pendingIRKs.withLockedValue { $0.merge(records.irks) { _, newer in newer } } }
            for (id, key) in records.irks {
                if key == nil { state.keyed.remove(id) } else { state.keyed.insert(id) }
            }
            for (id, label) in records.labels where state.histories[id] != nil {
                state.histories[id]?.label = label
                state.dirty.insert(id)
            }
            for device in records.devices {
                var history = state.histories[device.id] ?? DeviceHistory(id: device.id, seen: SeenSpan(at: date))
                history.note(device, at: date, online: device.online)
                history.note(PresenceTransition(at: date, online: device.online, reason: device.presenceReason))
                state.histories[device.id] = history
                state.present[device.id] = device
                state.dirty.insert(device.id)
            }
            for id in records.departed {
                guard let device = state.present.removeValue(forKey: id) else { continue }
                if device.online, state.histories[id] != nil {
                    state.histories[id]?.note(device, at: date, online: true)
                    state.dirty.insert(id)
                }
            }
        }
    }

    /// Removes devices and their history (those the store forgot are gone already).
    public func remove(_ ids: [DeviceID]) {
        state.withLockedValue { state in
            for id in ids where state.histories.removeValue(forKey: id) != nil {
                state.present[id] = nil
                state.dirty.remove(id)
                state.deleted.insert(id)
            }
        }
    }

    // MARK: Queries (from memory)

    /// Every device remembered, most recently seen first.
    /// - Complexity: O(n log n) for n devices remembered.
    public func knownDevices(now: Date = Date()) -> [KnownDeviceRecord] {
        state.withLockedValue { state in
            state.histories.values.map { $0.record(present: state.present[$0.id], now: now) }
        }.sorted { ($0.lastSeen, $1.id) > ($1.lastSeen, $0.id) }
    }

    /// One device's history with its presence transitions, or `nil` if it is not remembered.
    public func device(_ id: DeviceID, now: Date = Date()) -> KnownDeviceRecord? {
        state.withLockedValue { state in
            state.histories[id].map { history in
                var record = history.record(present: state.present[id], now: now)
                record.transitions = history.transitions
                return record
            }
        }
    }

    /// Whether a device is remembered (seen and neither forgotten nor merged into another).
    /// - Complexity: O(1)
    public func remembers(_ id: DeviceID) -> Bool {
        state.withLockedValue { $0.histories[id] != nil }
    }

    /// The devices not present whose last sighting is `forgetAfter` or more ago; with `bluetoothForgetAfter`, also
    /// the Bluetooth devices nobody touched (``DeviceHistory/isUntouchedBluetooth``, and no IRK) not seen for that
    /// long, as the store forgets them while it lists them (a restart must not keep them for `forgetAfter`).
    /// - Complexity: O(n) for n devices remembered.
    public func expiredDevices(
        forgetAfter: Duration,
        bluetoothForgetAfter: Duration? = nil,
        now: Date = Date()
    ) -> [DeviceID] {
        let horizon = Self.horizon(forgetAfter: forgetAfter, now: now)
        let untouched = bluetoothForgetAfter.map { max(Self.horizon(forgetAfter: $0, now: now), horizon) } ?? horizon
        return state.withLockedValue { state in
            state.histories.values.filter { history in
                guard state.present[history.id] == nil else { return false }
                let isUntouched = history.isUntouchedBluetooth && !state.keyed.contains(history.id)
                return history.seen.last <= (isUntouched ? untouched : horizon)
            }.map(\.id)
        }
    }

    /// The number of devices remembered.
    public var count: Int { state.withLockedValue { $0.histories.count } }

    /// The number of write batches committed so far.
    public var batchesWritten: Int { state.withLockedValue { $0.batchesWritten } }

    /// The sizes of the database file and of its write-ahead log, in bytes (0 in memory only).
    public var sizesInBytes: (database: Int, log: Int) { database?.sizesInBytes() ?? (0, 0) }

    // MARK: Writing (off the changeset path)

    /// Writes what changed since the last flush in one transaction; brings the last-seen times of the devices
    /// online up to date every ``lastSeenPrecision`` (and when `refreshingAll`). On failure, logs (at most once a
    /// minute) and keeps everything for the next flush.
    ///
    /// - Returns: Whether everything changed is on disk now (`true` in memory only).
    @discardableResult
    public func flush(now: Date = Date(), refreshingAll: Bool = false) async -> Bool {
        let irksWritten = await flushIRKs()
        let networksWritten = await flushNetworks() && irksWritten
        let (histories, deleted, transitionsMerged) = state.withLockedValue { state in
            if refreshingAll || now.timeIntervalSince(state.lastRefresh) >= Self.lastSeenPrecisionSeconds {
                state.lastRefresh = now
                for (id, device) in state.present where device.online {
                    state.histories[id]?.note(device, at: now, online: true)
                    state.dirty.insert(id)
                }
            }
            let histories = state.dirty.compactMap { state.histories[$0] }
            let deleted = Array(state.deleted)
            let transitionsMerged = state.transitionsMerged
            state.dirty = []
            state.deleted = []
            state.transitionsMerged = []
            return (histories, deleted, transitionsMerged)
        }
        guard let database, !histories.isEmpty || !deleted.isEmpty else { return networksWritten }
        do {
            try await database.write(histories, deleting: deleted, rewritingTransitions: transitionsMerged)
            let recovered = state.withLockedValue { state in
                state.batchesWritten += 1
                defer { state.isFailing = false }
                return state.isFailing
            }
            if recovered { logger.log(.registryWritesResumed, ["path": "\(database.path)"]) }
            return true
        } catch {
            let shouldLog = state.withLockedValue { state in
                // Put back what was not written, unless it changed meanwhile (then it is dirty again already).
                for history in histories where state.histories[history.id] != nil { state.dirty.insert(history.id) }
                state.transitionsMerged.formUnion(transitionsMerged.filter { state.histories[$0] != nil })
                for id in deleted where state.histories[id] == nil { state.deleted.insert(id) }
                state.isFailing = true
                guard state.lastFailureLogged.map({ now.timeIntervalSince($0) >= 60 }) ?? true else { return false }
                state.lastFailureLogged = now
                return true
            }
            if shouldLog {
                logger.log(
                    .registryWriteFailed,
                    ["error": "\(error)", "devices.pending": "\(histories.count + deleted.count)"]
                )
            }
            return false
        }
    }

    /// Devices last seen at or before this are forgotten.
    static func horizon(forgetAfter: Duration, now: Date) -> Date {
        now - TimeInterval(forgetAfter.components.seconds)
    }

    private static let lastSeenPrecisionSeconds = TimeInterval(lastSeenPrecision.components.seconds)

    /// Renames the database and its log files to `PATH.broken-TIMESTAMP…`.
    private static func moveAside(_ path: String, now: Date) throws(RegistryError) -> String {
        let aside = "\(path).broken-\(RFC3339.compact(now))"
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
            guard rename(path + suffix, aside + suffix) == 0 else {
                throw .moveAsideFailed(path: path + suffix, reason: POSIXText.errorDescription(errno))
            }
        }
        return aside
    }
}

/// RFC 3339 timestamps in UTC, for file names.
enum RFC3339 {
    /// `20261124T093000Z`.
    static func compact(_ date: Date) -> String {
        PeerScanWire.timestamp(date).replacingOccurrences(of: "-", with: "").replacingOccurrences(of: ":", with: "")
    }
}
