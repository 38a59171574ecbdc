import Foundation
import GRDB
import PeerScanCore
import PeerScanModel

/// The registry's SQLite database (through GRDB): versioned migrations, write-ahead logging, one transaction per
/// batch of writes.
///
/// Times are stored as Unix seconds (REAL). Schema (migration `v1`):
/// - `device(id, name, vendor, first_seen, last_seen)`;
/// - `device_key(device_id, key, bound, first_seen, last_seen)`: the host names and MAC addresses a device was seen
///   with (`host:NAME`, `mac:ADDRESS`); `bound` marks the keys that identify it (each bound to one device);
/// - `device_address(device_id, address, first_seen, last_seen)`;
/// - `device_transition(device_id, at, online, reason)` (migration `v2-transitions`): its presence transitions;
/// - `device_label(device_id, name, note, important)` (migration `labels`): what a person said about a device, for
///   the devices with a label;
/// - `device_split(device_id, key)` (migration `splits`): the keys a person split off a device, kept apart from it;
/// - `wifi_network(id, ssid, security, first_seen, last_seen)` and `wifi_access_point(network_id, bssid, first_seen,
///   last_seen)` (migration `wifi`): the Wi-Fi networks heard and their access points.
/// - `device_irk(device_id, irk)` (migration `bluetooth`): the Bluetooth Identity Resolving Key bound to a device (32
///   hex digits; a secret, never logged). Not tied to a `device` row: a key may be bound to a device the registry has
///   no row for yet (an ephemeral Bluetooth device); it goes with SetDeviceIRK `null` or ForgetDevice. Bluetooth
///   identity addresses are keys like MAC addresses (`bluetooth:ADDRESS` in `device_key`).
/// - `alert`, `alert_delivery`, `alert_destination`, `alert_rule` (migration `alerts`): the alerts' outbox and rules
///   (RegistryDatabase+Alerts).
/// Keys, addresses, transitions, labels and splits go with their device (`ON DELETE CASCADE`).
struct RegistryDatabase: Sendable {
    /// The database file.
    let path: String
    let queue: DatabaseQueue

    /// The migrations this version knows, in order.
    static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE device (
                        id TEXT PRIMARY KEY NOT NULL,
                        name TEXT,
                        vendor TEXT,
                        first_seen REAL NOT NULL,
                        last_seen REAL NOT NULL
                    );
                    CREATE TABLE device_key (
                        device_id TEXT NOT NULL REFERENCES device(id) ON DELETE CASCADE,
                        key TEXT NOT NULL,
                        bound INTEGER NOT NULL,
                        first_seen REAL NOT NULL,
                        last_seen REAL NOT NULL,
                        PRIMARY KEY (device_id, key)
                    ) WITHOUT ROWID;
                    CREATE TABLE device_address (
                        device_id TEXT NOT NULL REFERENCES device(id) ON DELETE CASCADE,
                        address TEXT NOT NULL,
                        first_seen REAL NOT NULL,
                        last_seen REAL NOT NULL,
                        PRIMARY KEY (device_id, address)
                    ) WITHOUT ROWID;
                    """
            )
        }
        migrator.registerMigration("v2-transitions") { db in
            try db.execute(
                sql: """
                    CREATE TABLE device_transition (
                        device_id TEXT NOT NULL REFERENCES device(id) ON DELETE CASCADE,
                        at REAL NOT NULL,
                        online INTEGER NOT NULL,
                        reason TEXT,
                        PRIMARY KEY (device_id, at)
                    ) WITHOUT ROWID;
                    """
            )
        }
        migrator.registerMigration("labels") { db in
            try db.execute(
                sql: """
                    CREATE TABLE device_label (
                        device_id TEXT PRIMARY KEY NOT NULL REFERENCES device(id) ON DELETE CASCADE,
                        name TEXT,
                        note TEXT,
                        important INTEGER NOT NULL
                    ) WITHOUT ROWID;
                    """
            )
        }
        migrator.registerMigration("splits") { db in
            try db.execute(
                sql: """
                    CREATE TABLE device_split (
                        device_id TEXT NOT NULL REFERENCES device(id) ON DELETE CASCADE,
                        key TEXT NOT NULL,
                        PRIMARY KEY (device_id, key)
                    ) WITHOUT ROWID;
                    """
            )
        }
        migrator.registerMigration("wifi") { db in
            try db.execute(
                sql: """
                    CREATE TABLE wifi_network (
                        id TEXT PRIMARY KEY NOT NULL,
                        ssid TEXT,
                        security TEXT NOT NULL,
                        first_seen REAL NOT NULL,
                        last_seen REAL NOT NULL
                    );
                    CREATE TABLE wifi_access_point (
                        network_id TEXT NOT NULL REFERENCES wifi_network(id) ON DELETE CASCADE,
                        bssid TEXT NOT NULL,
                        first_seen REAL NOT NULL,
                        last_seen REAL NOT NULL,
                        PRIMARY KEY (network_id, bssid)
                    ) WITHOUT ROWID;
                    """
            )
        }
        migrator.registerMigration("bluetooth") { db in
            try db.execute(
                sql: """
                    CREATE TABLE device_irk (
                        device_id TEXT PRIMARY KEY NOT NULL,
                        irk TEXT NOT NULL
                    ) WITHOUT ROWID;
                    """
            )
        }
        registerWiFiBaseline(in: &migrator)
        registerAlerts(in: &migrator)
        return migrator
    }()

    /// Opens (creating if needed) and migrates the database at `path`, checking that it is whole.
    ///
    /// - Throws: ``RegistryError/unreadable(path:reason:)`` for a file that is not a sound SQLite database (or cannot
    ///   be opened), ``RegistryError/newerSchema(path:unknownMigrations:)`` for one written by a newer peerscan.
    init(path: String) throws(RegistryError) {
        self.path = path
        var configuration = Configuration()
        configuration.label = "peerscan.registry"
        configuration.busyMode = .timeout(1)
        configuration.prepareDatabase { db in
            // WAL: a write never blocks a reader, and a crash mid-transaction leaves the last committed state.
            // synchronous=NORMAL: a power cut may lose the last transactions, never consistency. The log is
            // checkpointed every 256 pages (1 MiB) and cut back to 1 MiB after (SQLite's default lets it reach 4 MiB).
            try db.execute(
                sql: """
                    PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;
                    PRAGMA wal_autocheckpoint = 256; PRAGMA journal_size_limit = 1048576
                    """
            )
        }
        do {
            queue = try DatabaseQueue(path: path, configuration: configuration)
            try queue.writeWithoutTransaction { db in
                let check = try String.fetchAll(db, sql: "PRAGMA quick_check")
                guard check == ["ok"] else {
                    throw RegistryError.unreadable(path: path, reason: check.prefix(3).joined(separator: "; "))
                }
                let known = Set(Self.migrator.migrations)
                let applied = try Self.migrator.appliedIdentifiers(db)
                let unknown = applied.subtracting(known)
                guard unknown.isEmpty else {
                    throw RegistryError.newerSchema(path: path, unknownMigrations: unknown.sorted())
                }
            }
            try Self.migrator.migrate(queue)
        } catch let error as RegistryError {
            throw error
        } catch {
            throw .unreadable(path: path, reason: "\(error)")
        }
    }

    /// Every device stored.
    func loadAll() throws(RegistryError) -> [DeviceHistory] {
        do {
            return try queue.read { db in
                var histories: [String: DeviceHistory] = [:]
                let rows = try Row.fetchCursor(db, sql: "SELECT id, name, vendor, first_seen, last_seen FROM device")
                while let row = try rows.next() {
                    let text: String = row["id"]
                    guard let uuid = UUID(uuidString: text) else { continue }
                    histories[text] = DeviceHistory(
                        id: DeviceID(uuid),
                        name: row["name"],
                        vendor: row["vendor"],
                        seen: Self.span(row)
                    )
                }
                let keys = try Row.fetchCursor(
                    db,
                    sql: "SELECT key, device_id, bound, first_seen, last_seen FROM device_key"
                )
                while let row = try keys.next() {
                    guard let key = IdentityKey(row["key"] as String) else { continue }
                    let device = row["device_id"] as String
                    if let span = row["first_seen"] as Double?, span > 0 {
                        histories[device]?.keys[key] = Self.span(row)
                    }
                    if row["bound"] as Bool { histories[device]?.boundKeys.insert(key) }
                }
                let addresses = try Row.fetchCursor(
                    db,
                    sql: "SELECT address, device_id, first_seen, last_seen FROM device_address"
                )
                while let row = try addresses.next() {
                    histories[row["device_id"] as String]?.addresses[row["address"] as String] = Self.span(row)
                }
                let transitions = try Row.fetchCursor(
                    db,
                    sql: "SELECT device_id, at, online, reason FROM device_transition ORDER BY device_id, at"
                )
                while let row = try transitions.next() {
                    histories[row["device_id"] as String]?.transitions.append(
                        PresenceTransition(
                            at: Date(timeIntervalSince1970: row["at"]),
                            online: row["online"],
                            reason: (row["reason"] as String?).flatMap(PresenceReason.init)
                        )
                    )
                }
                let splits = try Row.fetchCursor(db, sql: "SELECT device_id, key FROM device_split")
                while let row = try splits.next() {
                    guard let key = IdentityKey(row["key"] as String) else { continue }
                    histories[row["device_id"] as String]?.apartKeys.insert(key)
                }
                let labels = try Row.fetchCursor(db, sql: "SELECT device_id, name, note, important FROM device_label")
                while let row = try labels.next() {
                    histories[row["device_id"] as String]?.label = DeviceLabel(
                        name: row["name"],
                        note: row["note"],
                        isImportant: row["important"]
                    )
                }
                return Array(histories.values)
            }
        } catch {
            throw .unreadable(path: path, reason: "\(error)")
        }
    }

    /// Writes a batch in one transaction: deletes `deleted`, then stores each history in `histories` whole, but its
    /// transitions are appended (``transitionsWrittenPerBatch``) unless the device is in `rewritingTransitions` (it
    /// took in another's history: they changed anywhere, not at their ends), whose are all written again.
    ///
    /// - Complexity: O(k + a + t) rows for k keys, a addresses and t transitions of the histories written (t is
    ///   at most 16 a device, but ``PresenceTransition/retention`` for one in `rewritingTransitions`).
    func write(
        _ histories: [DeviceHistory],
        deleting deleted: [DeviceID],
        rewritingTransitions: Set<DeviceID> = []
    ) async throws(RegistryError) {
        do {
            try await queue.write { db in
                for id in deleted {
                    try db.execute(sql: "DELETE FROM device WHERE id = ?", arguments: [id.description])
                }
                for history in histories {
                    let id = history.id.description
                    try db.execute(
                        sql: """
                            INSERT INTO device (id, name, vendor, first_seen, last_seen) VALUES (?, ?, ?, ?, ?)
                            ON CONFLICT(id) DO UPDATE SET name = excluded.name, vendor = excluded.vendor,
                                first_seen = excluded.first_seen, last_seen = excluded.last_seen
                            """,
                        arguments: [
                            id, history.name, history.vendor, history.seen.first.timeIntervalSince1970,
                            history.seen.last.timeIntervalSince1970,
                        ]
                    )
                    try db.execute(sql: "DELETE FROM device_key WHERE device_id = ?", arguments: [id])
                    try db.execute(sql: "DELETE FROM device_address WHERE device_id = ?", arguments: [id])
                    for key in history.boundKeys.union(history.keys.keys) {
                        let span = history.keys[key]
                        try db.execute(
                            sql: "INSERT INTO device_key VALUES (?, ?, ?, ?, ?)",
                            arguments: [
                                id, key.description, history.boundKeys.contains(key),
                                span?.first.timeIntervalSince1970 ?? 0, span?.last.timeIntervalSince1970 ?? 0,
                            ]
                        )
                    }
                    // Transitions change at their ends only (appended, or dropped past their retention), unless
                    // the device took in another's.
                    let isRewritten = rewritingTransitions.contains(history.id)
                    let kept =
                        isRewritten ? .infinity : history.transitions.first?.at.timeIntervalSince1970 ?? .infinity
                    try db.execute(
                        sql: "DELETE FROM device_transition WHERE device_id = ? AND at < ?",
                        arguments: [id, kept]
                    )
                    let written = isRewritten ? history.transitions.count : Self.transitionsWrittenPerBatch
                    for transition in history.transitions.suffix(written) {
                        try db.execute(
                            sql: "INSERT OR IGNORE INTO device_transition VALUES (?, ?, ?, ?)",
                            arguments: [
                                id, transition.at.timeIntervalSince1970, transition.online,
                                transition.reason?.description,
                            ]
                        )
                    }
                    try db.execute(sql: "DELETE FROM device_split WHERE device_id = ?", arguments: [id])
                    for key in history.apartKeys {
                        try db.execute(sql: "INSERT INTO device_split VALUES (?, ?)", arguments: [id, key.description])
                    }
                    try db.execute(sql: "DELETE FROM device_label WHERE device_id = ?", arguments: [id])
                    if !history.label.isEmpty {
                        try db.execute(
                            sql: "INSERT INTO device_label VALUES (?, ?, ?, ?)",
                            arguments: [id, history.label.name, history.label.note, history.label.isImportant]
                        )
                    }
                    for (address, span) in history.addresses {
                        try db.execute(
                            sql: "INSERT INTO device_address VALUES (?, ?, ?, ?)",
                            arguments: [
                                id, address, span.first.timeIntervalSince1970, span.last.timeIntervalSince1970,
                            ]
                        )
                    }
                }
            }
        } catch {
            throw .writeFailed(path: path, reason: "\(error)")
        }
    }

    /// The sizes of the database file and of its write-ahead log, in bytes.
    func sizesInBytes() -> (database: Int, log: Int) {
        func size(_ file: String) -> Int {
            (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
        }
        return (size(path), size(path + "-wal"))
    }

    /// How many of a device's latest transitions each write stores again (those since its last write are among
    /// them: a device's presence changes at most a few times a second, and a batch is written every second). A
    /// merge changes more than the end: ``write(_:deleting:rewritingTransitions:)`` stores the survivor's all.
    static let transitionsWrittenPerBatch = 16

    private static func span(_ row: Row) -> SeenSpan {
        SeenSpan(
            first: Date(timeIntervalSince1970: row["first_seen"]),
            last: Date(timeIntervalSince1970: row["last_seen"])
        )
    }
}
