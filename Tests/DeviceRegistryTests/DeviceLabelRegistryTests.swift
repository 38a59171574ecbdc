import Foundation
import GRDB
import Logging
import PeerScanCore
import PeerScanModel
import TestSupport
import Testing

@testable import DeviceRegistry

private let t0 = Date(timeIntervalSince1970: 1_790_000_000)
private let plug = DeviceID.make(macAddress: "00:00:0c:00:00:01")
private let lamp = DeviceID.make(macAddress: "00:00:0c:00:00:03")

private func seen(_ id: DeviceID, mac: String) -> DeviceRecords {
    DeviceRecords(
        identityChanges: [.bound(.macAddress(mac), id)],
        devices: [
            Device(
                id: id,
                hostName: nil,
                displayName: nil,
                addresses: ["192.0.2.20"],
                interfaces: ["eth0"],
                services: [],
                macAddresses: [mac]
            )
        ]
    )
}

/// The registry keeps labels (migration `labels`, table `device_label`) with the device's history.
@Suite struct DeviceLabelRegistryTests {
    @Test func aLabelIsStoredAndServedAndSurvivesAReopen() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/registry.sqlite"
            let registry = DeviceRegistry(path: path, forgetAfter: .seconds(86400), now: t0, logger: .silent)
            registry.record(seen(plug, mac: "00:00:0c:00:00:01"), at: t0)
            let label = DeviceLabel(name: "Kitchen plug", note: "on the \"left\"\nshelf", isImportant: true)
            registry.record(DeviceRecords(labels: [plug: label]), at: t0 + 1)
            #expect(registry.device(plug, now: t0 + 1)?.label == label)
            // The device as the store publishes it then, labelled: the name found stays the registry's name.
            var published = try #require(seen(plug, mac: "00:00:0c:00:00:01").devices.first).labelled(label)
            registry.record(DeviceRecords(devices: [published]), at: t0 + 1)
            #expect(registry.device(plug, now: t0 + 1)?.name == nil, "a MAC-only device has no name of its own")
            published.hostName = "plug.local"
            registry.record(DeviceRecords(devices: [published]), at: t0 + 1)
            #expect(registry.device(plug, now: t0 + 1)?.name == "plug.local")
            #expect(await registry.flush(now: t0 + 1))

            let reopened = DeviceRegistry(path: path, forgetAfter: .seconds(86400), now: t0 + 60, logger: .silent)
            #expect(reopened.labels.label(of: plug) == label)
            #expect(reopened.device(plug, now: t0 + 60)?.label == label)
            #expect(reopened.knownDevices(now: t0 + 60).map(\.label) == [label])

            // Cleared: the row goes.
            reopened.record(DeviceRecords(labels: [plug: .none]), at: t0 + 61)
            #expect(await reopened.flush(now: t0 + 61))
            let again = DeviceRegistry(path: path, forgetAfter: .seconds(86400), now: t0 + 62, logger: .silent)
            #expect(again.labels.count == 0)
            #expect(again.device(plug, now: t0 + 62)?.label == DeviceLabel.none)
            let rows = try await DatabaseQueue(path: path).read {
                try Int.fetchOne($0, sql: "SELECT count(*) FROM device_label")
            }
            #expect(rows == 0)
        }
    }

    @Test func aLabelForADeviceNotRememberedIsIgnoredAndAForgottenDevicesLabelGoesWithIt() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/registry.sqlite"
            let registry = DeviceRegistry(path: path, forgetAfter: .seconds(86400), now: t0, logger: .silent)
            registry.record(DeviceRecords(labels: [lamp: DeviceLabel(name: "Lamp")]), at: t0)
            #expect(registry.remembers(lamp) == false)

            registry.record(seen(plug, mac: "00:00:0c:00:00:01"), at: t0)
            registry.record(DeviceRecords(labels: [plug: DeviceLabel(name: "Plug")]), at: t0)
            #expect(await registry.flush(now: t0))
            registry.record(DeviceRecords(identityChanges: [.forgotten(plug)], labels: [plug: .none]), at: t0 + 1)
            #expect(await registry.flush(now: t0 + 1))
            let rows = try await DatabaseQueue(path: path).read {
                try Int.fetchOne($0, sql: "SELECT count(*) FROM device_label")
            }
            #expect(rows == 0, "ON DELETE CASCADE")
        }
    }

    @Test func aDatabaseOfTheFirstSchemaIsMigratedAndKeepsItsDevices() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/registry.sqlite"
            // A registry written before labels: only migration v1.
            let queue = try DatabaseQueue(path: path)
            try RegistryDatabase.migrator.migrate(queue, upTo: "v1")
            try await queue.write { db in
                try db.execute(
                    sql: "INSERT INTO device VALUES (?, NULL, NULL, ?, ?)",
                    arguments: [plug.description, t0.timeIntervalSince1970, t0.timeIntervalSince1970]
                )
                try db.execute(
                    sql: "INSERT INTO device_key VALUES (?, 'mac:00:00:0c:00:00:01', 1, ?, ?)",
                    arguments: [plug.description, t0.timeIntervalSince1970, t0.timeIntervalSince1970]
                )
            }
            try queue.close()

            let registry = DeviceRegistry(path: path, forgetAfter: .seconds(86400), now: t0 + 1, logger: .silent)
            #expect(registry.identities.id(for: .macAddress("00:00:0c:00:00:01")) == plug)
            registry.record(DeviceRecords(labels: [plug: DeviceLabel(isImportant: true)]), at: t0 + 2)
            #expect(await registry.flush(now: t0 + 2))
            let applied = try await DatabaseQueue(path: path).read {
                try RegistryDatabase.migrator.appliedIdentifiers($0)
            }
            #expect(
                applied == [
                    "v1", "v2-transitions", "labels", "splits", "wifi", "bluetooth", "wifi-baseline", "alerts",
                    "alert-not-before",
                ]
            )
        }
    }
}

/// A person's merge and split in the registry: histories joined, a split key's own history, kept apart across a
/// reopen (migration `splits`, table `device_split`).
@Suite struct DeviceSplitRegistryTests {
    @Test func aMergeJoinsHistoriesAndASplitIsKeptApartAcrossAReopen() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/registry.sqlite"
            let registry = DeviceRegistry(path: path, forgetAfter: .seconds(86400), now: t0, logger: .silent)
            registry.record(seen(plug, mac: "00:00:0c:00:00:01"), at: t0)
            registry.record(seen(lamp, mac: "00:00:0c:00:00:03"), at: t0 + 5)
            registry.record(DeviceRecords(identityChanges: [.merged(lamp, into: plug)]), at: t0 + 6)
            let merged = try #require(registry.device(plug, now: t0 + 6))
            #expect(merged.macAddresses.map(\.value) == ["00:00:0c:00:00:01", "00:00:0c:00:00:03"])
            #expect(registry.remembers(lamp) == false)

            let key = IdentityKey.macAddress("00:00:0c:00:00:03")
            registry.record(DeviceRecords(identityChanges: [.split(key, from: plug, to: lamp)]), at: t0 + 7)
            #expect(await registry.flush(now: t0 + 7))
            let split = try #require(registry.device(lamp, now: t0 + 7))
            #expect(split.macAddresses.map(\.value) == ["00:00:0c:00:00:03"] && split.firstSeen == t0 + 5)
            #expect(registry.device(plug, now: t0 + 7)?.macAddresses.map(\.value) == ["00:00:0c:00:00:01"])

            let reopened = DeviceRegistry(path: path, forgetAfter: .seconds(86400), now: t0 + 8, logger: .silent)
            #expect(reopened.identities.id(for: key) == lamp)
            #expect(reopened.identities.id(for: .macAddress("00:00:0c:00:00:01")) == plug)
            #expect(reopened.identities.keysApart(from: plug) == [key])
            #expect(reopened.identities.areApart(plug, lamp))
        }
    }
}
