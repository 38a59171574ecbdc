import Foundation
import GRDB
import PeerScanModel

/// The alerts' outbox and rules (migrations `alerts`, `alert-not-before`):
/// - `alert(seq, id, created, json, not_before)`: every alert not yet acknowledged by every destination it was offered
///   to, in the order it was decided (`seq`); `json`: the ``Alert`` as ``AlertOutbox`` encodes it; `not_before`
///   (Unix seconds, `NULL`: from `created`): the end of the quiet hours it was decided in, before which it is not
///   offered, and from which its expiry counts;
/// - `alert_delivery(alert_seq, destination, state)`: one row per alert and destination (`pending`, `sent`,
///   `rejected`); an alert goes (with its rows) once none is `pending`;
/// - `alert_destination(name, since)`: the destinations a sender named, and since when (Unix seconds): a new alert
///   gets a `pending` row for each;
/// - `alert_rule(device_id, events)`: a person's rules; `device_id` empty for the default rule, `events`
///   comma-separated.
extension RegistryDatabase {
    static func registerAlerts(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("alerts") { db in
            try db.execute(
                sql: """
                    CREATE TABLE alert (
                        seq INTEGER PRIMARY KEY AUTOINCREMENT,
                        id TEXT NOT NULL UNIQUE,
                        created REAL NOT NULL,
                        json TEXT NOT NULL
                    );
                    CREATE TABLE alert_delivery (
                        alert_seq INTEGER NOT NULL REFERENCES alert(seq) ON DELETE CASCADE,
                        destination TEXT NOT NULL,
                        state TEXT NOT NULL,
                        PRIMARY KEY (alert_seq, destination)
                    ) WITHOUT ROWID;
                    CREATE TABLE alert_destination (
                        name TEXT PRIMARY KEY NOT NULL,
                        since REAL NOT NULL
                    ) WITHOUT ROWID;
                    CREATE TABLE alert_rule (
                        device_id TEXT PRIMARY KEY NOT NULL,
                        events TEXT NOT NULL
                    ) WITHOUT ROWID;
                    """
            )
        }
        migrator.registerMigration("alert-not-before") { db in
            try db.execute(sql: "ALTER TABLE alert ADD COLUMN not_before REAL")
        }
    }

    /// A stored alert: its place in the order, the alert (`nil` if its JSON cannot be read), its destinations'
    /// states, and its not-before time.
    struct StoredAlert: Sendable {
        var seq: Int64
        var alert: Alert?
        var deliveries: [String: String]
        var notBefore: Date?
    }

    /// Everything the outbox and the rules hold.
    func loadAlerts() throws(RegistryError) -> (alerts: [StoredAlert], destinations: [String], rules: [AlertRule]) {
        do {
            return try queue.read { db in
                var alerts: [Int64: StoredAlert] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT seq, json, not_before FROM alert") {
                    let seq: Int64 = row["seq"]
                    let json: String = row["json"]
                    let alert = try? Self.alertDecoder().decode(Alert.self, from: Data(json.utf8))
                    let notBefore = (row["not_before"] as Double?).map(Date.init(timeIntervalSince1970:))
                    alerts[seq] = StoredAlert(seq: seq, alert: alert, deliveries: [:], notBefore: notBefore)
                }
                let deliveries = try Row.fetchAll(db, sql: "SELECT alert_seq, destination, state FROM alert_delivery")
                for row in deliveries {
                    alerts[row["alert_seq"] as Int64]?.deliveries[row["destination"]] = row["state"]
                }
                let destinations = try String.fetchAll(
                    db,
                    sql: "SELECT name FROM alert_destination ORDER BY since, name"
                )
                let rules = try Row.fetchAll(db, sql: "SELECT device_id, events FROM alert_rule").map { row in
                    AlertRule(
                        device: DeviceID(text: row["device_id"]),
                        events: (row["events"] as String).split(separator: ",").compactMap {
                            AlertEvent(rawValue: String($0))
                        }
                    )
                }
                return (alerts.values.sorted { $0.seq < $1.seq }, destinations, rules)
            }
        } catch {
            throw .unreadable(path: path, reason: "\(error)")
        }
    }

    /// Writes a new alert at `seq` in the order with a `pending` row for each destination and its not-before time,
    /// and sets the not-before times of the earlier alerts in `lowering` (``AlertHold/write(_:notBefore:now:)``), in
    /// one transaction.
    func insertAlert(
        _ alert: Alert,
        seq: Int64,
        destinations: [String],
        notBefore: Date? = nil,
        lowering: [(seq: Int64, notBefore: Date)] = []
    ) throws(RegistryError) {
        let json: String
        do {
            json = String(decoding: try Self.alertEncoder().encode(alert), as: UTF8.self)
        } catch {
            throw .writeFailed(path: path, reason: "\(error)")
        }
        try writing { db in
            try db.execute(
                sql: "INSERT INTO alert (seq, id, created, json, not_before) VALUES (?, ?, ?, ?, ?)",
                arguments: [
                    seq, alert.id.uuidString.lowercased(), alert.created.timeIntervalSince1970, json,
                    notBefore?.timeIntervalSince1970,
                ]
            )
            for (earlier, time) in lowering {
                try db.execute(
                    sql: "UPDATE alert SET not_before = ? WHERE seq = ?",
                    arguments: [time.timeIntervalSince1970, earlier]
                )
            }
            for destination in destinations {
                try db.execute(
                    sql: "INSERT INTO alert_delivery (alert_seq, destination, state) VALUES (?, ?, 'pending')",
                    arguments: [seq, destination]
                )
            }
        }
    }

    /// Sets the states of deliveries, and deletes the alerts of `finished` (none of theirs pending), in one
    /// transaction.
    func updateDeliveries(
        _ states: [(seq: Int64, destination: String, state: String)],
        finished: [Int64]
    )
        throws(RegistryError)
    {
        try writing { db in
            for (seq, destination, state) in states {
                try db.execute(
                    sql: "UPDATE alert_delivery SET state = ? WHERE alert_seq = ? AND destination = ?",
                    arguments: [state, seq, destination]
                )
            }
            for seq in finished { try db.execute(sql: "DELETE FROM alert WHERE seq = ?", arguments: [seq]) }
        }
    }

    /// Records destinations named for the first time.
    func insertDestinations(_ names: [String], since: Date) throws(RegistryError) {
        try writing { db in
            for name in names {
                try db.execute(
                    sql: "INSERT OR IGNORE INTO alert_destination (name, since) VALUES (?, ?)",
                    arguments: [name, since.timeIntervalSince1970]
                )
            }
        }
    }

    /// Sets (`events` not `nil`) or removes the rule of `device` (the default rule when `nil`: stored as `''`).
    func writeRule(device: DeviceID?, events: [AlertEvent]?) throws(RegistryError) {
        let device = device?.description ?? ""
        let events = events.map { Set($0).map(\.rawValue).sorted().joined(separator: ",") }
        try writing { db in
            if let events {
                try db.execute(
                    sql: """
                        INSERT INTO alert_rule (device_id, events) VALUES (?, ?)
                        ON CONFLICT(device_id) DO UPDATE SET events = excluded.events
                        """,
                    arguments: [device, events]
                )
            } else {
                try db.execute(sql: "DELETE FROM alert_rule WHERE device_id = ?", arguments: [device])
            }
        }
    }

    /// The JSON of `alert.json`: the ``Alert``'s Codable form, times in Unix milliseconds.
    private static func alertEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.outputFormatting = .sortedKeys
        return encoder
    }

    private static func alertDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return decoder
    }

    private func writing<T>(_ body: (Database) throws -> T) throws(RegistryError) -> T {
        do {
            return try queue.write(body)
        } catch {
            throw .writeFailed(path: path, reason: "\(error)")
        }
    }
}
