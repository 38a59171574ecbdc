import Foundation
import GRDB
import InMemoryLogging
import Logging
import PeerScanCore
import PeerScanModel
import TestSupport
import Testing

@testable import DeviceRegistry

private let t0 = Date(timeIntervalSince1970: 1_790_000_000)

private func device(
    _ id: DeviceID,
    host: String? = nil,
    macs: [String] = [],
    addresses: [String] = [],
    online: Bool = true
)
    -> Device
{
    Device(
        id: id,
        hostName: host,
        displayName: host.map { "\($0.prefix { $0 != "." })" },
        addresses: addresses,
        interfaces: ["eth0"],
        services: [],
        macAddresses: macs,
        vendor: macs.isEmpty ? nil : "Cisco Systems, Inc",
        online: online
    )
}

private let printer = DeviceID.make(hostName: "printer.local")
private let plug = DeviceID.make(macAddress: "00:00:0c:00:00:01")

private func seenPrinter(at date: Date, address: String = "192.0.2.10") -> DeviceRecords {
    DeviceRecords(
        identityChanges: [
            .bound(.hostName("printer.local"), printer), .bound(.macAddress("00:00:0c:00:00:02"), printer),
        ],
        devices: [device(printer, host: "printer.local", macs: ["00:00:0c:00:00:02"], addresses: [address])]
    )
}

@Suite struct DeviceRegistryTests {
    @Test func aDeviceSeenIsRememberedWithItsKeysAndAddressesAcrossAReopen() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/registry.sqlite"
            let registry = DeviceRegistry(path: path, forgetAfter: .seconds(86400), now: t0, logger: .silent)
            registry.record(seenPrinter(at: t0), at: t0)
            registry.record(seenPrinter(at: t0, address: "192.0.2.11"), at: t0 + 30)
            registry.record(DeviceRecords(departed: [printer]), at: t0 + 40)
            #expect(await registry.flush(now: t0 + 40))
            #expect(registry.batchesWritten == 1)

            let reopened = DeviceRegistry(path: path, forgetAfter: .seconds(86400), now: t0 + 60, logger: .silent)
            #expect(reopened.identities.id(for: .hostName("printer.local")) == printer)
            #expect(reopened.identities.id(for: .macAddress("00:00:0c:00:00:02")) == printer)
            let known = try #require(reopened.device(printer, now: t0 + 60))
            #expect(known.name == "printer")
            #expect(known.present == false && known.online == false)
            #expect(known.firstSeen == t0)
            #expect(known.lastSeen == t0 + 40)  // when it departed, online
            #expect(known.hostNames.map(\.value) == ["printer.local"])
            #expect(known.macAddresses.map(\.value) == ["00:00:0c:00:00:02"])
            #expect(known.addresses.map(\.value) == ["192.0.2.10", "192.0.2.11"])
            #expect(known.addresses.map(\.lastSeen) == [t0, t0 + 40])
            #expect(known.vendor == "Cisco Systems, Inc")
        }
    }

    @Test func aDevicePresentAndOnlineIsLastSeenNow() {
        let registry = DeviceRegistry(path: nil, forgetAfter: .seconds(86400), now: t0, logger: .silent)
        registry.record(seenPrinter(at: t0), at: t0)
        let known = registry.device(printer, now: t0 + 3600)
        #expect(known?.present == true && known?.online == true)
        #expect(known?.lastSeen == t0 + 3600)
        #expect(known?.addresses.first?.lastSeen == t0 + 3600)
        // Offline: last seen when it last answered.
        var offline = device(printer, host: "printer.local", addresses: ["192.0.2.10"], online: false)
        offline.macAddresses = ["00:00:0c:00:00:02"]
        registry.record(DeviceRecords(devices: [offline]), at: t0 + 100)
        #expect(registry.device(printer, now: t0 + 3600)?.lastSeen == t0)
    }

    @Test func aMergeMovesTheKeysAndHistoryAndDeletesTheMergedDevice() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/registry.sqlite"
            let registry = DeviceRegistry(path: path, forgetAfter: .seconds(86400), now: t0, logger: .silent)
            registry.record(
                DeviceRecords(
                    identityChanges: [.bound(.macAddress("00:00:0c:00:00:01"), plug)],
                    devices: [device(plug, macs: ["00:00:0c:00:00:01"], addresses: ["192.0.2.20"])]
                ),
                at: t0
            )
            await registry.flush(now: t0)
            registry.record(seenPrinter(at: t0 + 10), at: t0 + 10)
            registry.record(
                DeviceRecords(identityChanges: [.merged(plug, into: printer)], departed: [plug]),
                at: t0 + 10
            )
            await registry.flush(now: t0 + 10)
            let reopened = DeviceRegistry(path: path, forgetAfter: .seconds(86400), now: t0 + 20, logger: .silent)
            #expect(reopened.count == 1)
            #expect(reopened.identities.id(for: .macAddress("00:00:0c:00:00:01")) == printer)
            let known = try #require(reopened.device(printer, now: t0 + 20))
            #expect(known.firstSeen == t0)  // the plug's
            #expect(Set(known.addresses.map(\.value)) == ["192.0.2.10", "192.0.2.20"])
        }
    }

    @Test func forgottenDevicesAndThoseNotSeenForForgetAfterAreGone() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/registry.sqlite"
            let registry = DeviceRegistry(path: path, forgetAfter: .seconds(3600), now: t0, logger: .silent)
            registry.record(seenPrinter(at: t0), at: t0)
            registry.record(
                DeviceRecords(
                    identityChanges: [.bound(.macAddress("00:00:0c:00:00:01"), plug)],
                    devices: [device(plug, macs: ["00:00:0c:00:00:01"])],
                    departed: []
                ),
                at: t0
            )
            registry.record(DeviceRecords(departed: [printer, plug]), at: t0)
            #expect(registry.expiredDevices(forgetAfter: .seconds(3600), now: t0 + 3599).isEmpty)
            #expect(Set(registry.expiredDevices(forgetAfter: .seconds(3600), now: t0 + 3600)) == [printer, plug])
            registry.record(DeviceRecords(identityChanges: [.forgotten(plug)]), at: t0 + 10)
            await registry.flush(now: t0 + 10)
            let reopened = DeviceRegistry(path: path, forgetAfter: .seconds(3600), now: t0 + 100, logger: .silent)
            #expect(reopened.knownDevices(now: t0 + 100).map(\.id) == [printer])
            // Loaded after the horizon: forgotten while loading.
            let later = DeviceRegistry(path: path, forgetAfter: .seconds(3600), now: t0 + 3601, logger: .silent)
            #expect(later.count == 0)
            #expect(later.identities.count == 0)
        }
    }

    @Test(arguments: ["garbage", "directory", "truncated"])
    func anUnusableDatabaseIsMovedAsideAndAFreshOneStarted(kind: String) async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/registry.sqlite"
            switch kind {
            case "garbage":
                try String(repeating: "not a database ", count: 500).write(
                    toFile: path,
                    atomically: true,
                    encoding: .utf8
                )
            case "directory":
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            default:
                do {  // closed at the end of the scope: its log is checkpointed into the file
                    let good = DeviceRegistry(path: path, forgetAfter: .seconds(86400), now: t0, logger: .silent)
                    registry(good, sees: 50)
                    await good.flush(now: t0)
                }
                let handle = try #require(FileHandle(forUpdatingAtPath: path))
                try handle.seek(toOffset: 4096)  // the pages after the schema's: the tables' b-trees
                try handle.write(contentsOf: Data(repeating: 0xA5, count: 3 * 4096))
                try handle.close()
            }
            let (registry, logs) = loggedRegistry(path: path)
            let messages = logs.entries.map(\.message.description)
            #expect(messages.contains("registry unusable"))
            #expect(messages.contains("registry moved aside"))
            #expect(registry.path == path)
            let aside = try FileManager.default.contentsOfDirectory(atPath: directory).filter {
                $0.hasPrefix("registry.sqlite.broken-")
            }
            #expect(!aside.isEmpty)
            // The fresh one works.
            registry.record(seenPrinter(at: t0), at: t0)
            #expect(await registry.flush(now: t0))
        }
    }

    @Test func aDatabaseOfANewerSchemaIsMovedAsideNotMigrated() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/registry.sqlite"
            _ = DeviceRegistry(path: path, forgetAfter: .seconds(86400), now: t0, logger: .silent)
            let queue = try DatabaseQueue(path: path)
            try await queue.write { db in
                try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-from-the-future')")
            }
            try queue.close()
            let logs = InMemoryLogHandler()
            _ = DeviceRegistry(
                path: path,
                forgetAfter: .seconds(86400),
                now: t0,
                logger: Logger(label: "t") { _ in logs }
            )
            let unusable = logs.entries.first { $0.message == "registry unusable" }
            #expect(unusable?.metadata["error"]?.description.contains("newer peerscan") == true)
        }
    }

    @Test func aFailedWriteKeepsEverythingInMemoryAndIsWrittenOnceItWorks() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/registry.sqlite"
            let (registry, logs) = loggedRegistry(path: path)
            // Make the database read-only under the registry's feet: writes fail as on a full disk.
            var configuration = Configuration()
            configuration.allowsUnsafeTransactions = true
            let blocker = try DatabaseQueue(path: path, configuration: configuration)
            try await blocker.writeWithoutTransaction { db in try db.execute(sql: "BEGIN EXCLUSIVE") }
            registry.record(seenPrinter(at: t0), at: t0)
            #expect(await registry.flush(now: t0) == false)
            #expect(await registry.flush(now: t0 + 1) == false)
            #expect(logs.entries.filter { $0.message == "registry write failed" }.count == 1)  // rate-limited
            #expect(registry.device(printer, now: t0)?.name == "printer")  // still served
            try await blocker.writeWithoutTransaction { db in try db.execute(sql: "ROLLBACK") }
            try blocker.close()
            #expect(await registry.flush(now: t0 + 2))
            #expect(logs.entries.contains { $0.message == "registry writes resumed" })
            let reopened = DeviceRegistry(path: path, forgetAfter: .seconds(86400), now: t0 + 3, logger: .silent)
            #expect(reopened.identities.id(for: .hostName("printer.local")) == printer)
        }
    }
}

/// Records `count` MAC-only devices.
private func registry(_ registry: DeviceRegistry, sees count: Int) {
    for index in 0..<count {
        let mac = String(format: "02:00:00:00:%02x:%02x", index / 256, index % 256)
        let id = DeviceID.make(macAddress: mac)
        registry.record(
            DeviceRecords(
                identityChanges: [.bound(.macAddress(mac), id)],
                devices: [device(id, macs: [mac], addresses: ["10.0.\(index / 256).\(index % 256)"])]
            ),
            at: t0
        )
    }
}

/// A registry opened at `t0` with a day's memory, and the log lines it wrote.
private func loggedRegistry(path: String) -> (DeviceRegistry, InMemoryLogHandler) {
    let logs = InMemoryLogHandler()
    let registry = DeviceRegistry(
        path: path,
        forgetAfter: .seconds(86400),
        now: t0,
        logger: Logger(label: "t") { _ in logs }
    )
    return (registry, logs)
}
