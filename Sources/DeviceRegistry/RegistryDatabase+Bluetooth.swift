import Foundation
import GRDB
import PeerScanModel

extension RegistryDatabase {
    /// The Bluetooth IRKs stored, by device.
    ///
    /// - Throws: ``RegistryError/unreadable(path:reason:)`` if they cannot be read, or a row is not a device id and
    ///   32 hex digits (the reason names the device, never the key).
    func loadIRKs() throws(RegistryError) -> [DeviceID: IdentityResolvingKey] {
        do {
            return try queue.read { db in
                var keys: [DeviceID: IdentityResolvingKey] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT device_id, irk FROM device_irk") {
                    let text: String = row["device_id"]
                    guard let id = DeviceID(text: text), let key = IdentityResolvingKey(hex: row["irk"]) else {
                        throw RegistryError.unreadable(path: path, reason: "device_irk row \(text): not an IRK")
                    }
                    keys[id] = key
                }
                return keys
            }
        } catch let error as RegistryError {
            throw error
        } catch {
            throw .unreadable(path: path, reason: "\(error)")
        }
    }

    /// Stores IRK changes in one transaction: each key inserted or replaced, or deleted (`nil`).
    /// - Complexity: O(c) rows for c changes.
    func writeIRKs(_ changes: [DeviceID: IdentityResolvingKey?]) async throws(RegistryError) {
        do {
            try await queue.write { db in
                for (id, key) in changes {
                    if let key {
                        try db.execute(
                            sql: """
                                INSERT INTO device_irk (device_id, irk) VALUES (?, ?)
                                ON CONFLICT(device_id) DO UPDATE SET irk = excluded.irk
                                """,
                            arguments: [id.description, key.hexDigits]
                        )
                    } else {
                        try db.execute(sql: "DELETE FROM device_irk WHERE device_id = ?", arguments: [id.description])
                    }
                }
            }
        } catch {
            throw .writeFailed(path: path, reason: "\(error)")
        }
    }
}
