import Foundation
import GRDB
import Logging
import PeerScanCore
import PeerScanModel
import TestSupport
import Testing

@testable import DeviceRegistry

private let t0 = Date(timeIntervalSince1970: 1_790_000_000)
private let phone = DeviceID.make(macAddress: "3c:22:fb:44:55:66")
private let irk = IdentityResolvingKey(hex: "ec0234a357c8ad05341010a60a397d9b")!

/// The registry keeps Bluetooth IRKs (migration `bluetooth`, table `device_irk`) and Bluetooth identity keys.
@Suite struct BluetoothRegistryTests {
    @Test func anIRKIsStoredAndLoadedAtStartAndRemoved() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/registry.sqlite"
            let registry = DeviceRegistry(path: path, forgetAfter: .seconds(86400), now: t0, logger: .silent)
            registry.record(DeviceRecords(irks: [phone: irk]), at: t0)
            #expect(await registry.flush(now: t0))
            let reopened = DeviceRegistry(path: path, forgetAfter: .seconds(86400), now: t0 + 1, logger: .silent)
            #expect(reopened.irks == [phone: irk])
            let stored = try await DatabaseQueue(path: path).read {
                try String.fetchAll($0, sql: "SELECT irk FROM device_irk")
            }
            #expect(stored == ["ec0234a357c8ad05341010a60a397d9b"])
            let removal: [DeviceID: IdentityResolvingKey?] = [phone: nil]
            #expect(removal.count == 1)
            reopened.record(DeviceRecords(irks: removal), at: t0 + 2)
            #expect(await reopened.flush(now: t0 + 2))
            let again = DeviceRegistry(path: path, forgetAfter: .seconds(86400), now: t0 + 3, logger: .silent)
            #expect(again.irks.isEmpty)
        }
    }

    @Test func aBluetoothIdentityAddressIsAKeyThatKeepsTheDevicesID() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/registry.sqlite"
            let address = "00:1a:7d:da:71:13"
            let tag = DeviceID.make(bluetoothAddress: address)
            let registry = DeviceRegistry(path: path, forgetAfter: .seconds(86400), now: t0, logger: .silent)
            let device = Device(
                id: tag,
                hostName: nil,
                displayName: "Tag",
                addresses: [],
                interfaces: [],
                services: [],
                bluetooth: BluetoothFacts(address: address, addressType: .public)
            )
            registry.record(
                DeviceRecords(identityChanges: [.bound(.bluetooth(address), tag)], devices: [device]),
                at: t0
            )
            #expect(await registry.flush(now: t0))
            let reopened = DeviceRegistry(path: path, forgetAfter: .seconds(86400), now: t0 + 1, logger: .silent)
            #expect(reopened.identities.id(for: .bluetooth(address)) == tag)
        }
    }

    @Test func theKeyIsNeverShown() {
        #expect("\(irk)" == "IRK(redacted)")
        #expect(!String(describing: DeviceRecords(irks: [phone: irk])).contains("ec0234"))
    }

    @Test func aBluetoothDeviceNobodyTouchedExpiresAfterTheBluetoothForgetTimeOthersAfterForgetAfter() {
        let registry = DeviceRegistry(path: nil, forgetAfter: .seconds(7 * 86400), now: t0, logger: .silent)
        let addresses = ["c4:00:00:00:00:01", "c4:00:00:00:00:02", "c4:00:00:00:00:03"]
        let (untouched, named, keyed) = (
            DeviceID.make(bluetoothAddress: addresses[0]), DeviceID.make(bluetoothAddress: addresses[1]),
            DeviceID.make(bluetoothAddress: addresses[2])
        )
        let ids = [untouched, named, keyed]
        registry.record(
            DeviceRecords(
                identityChanges: zip(addresses, ids).map { .bound(.bluetooth($0), $1) },
                labels: [named: DeviceLabel(name: "Scale")],
                irks: [keyed: irk],
                devices: ids.map {
                    Device(
                        id: $0,
                        hostName: nil,
                        displayName: nil,
                        addresses: [],
                        interfaces: [],
                        services: [],
                        online: true
                    )
                }
            ),
            at: t0
        )
        registry.record(DeviceRecords(departed: ids), at: t0)
        let day = TimeInterval(86400)
        #expect(
            registry.expiredDevices(
                forgetAfter: .seconds(7 * 86400),
                bluetoothForgetAfter: .seconds(86400),
                now: t0 + day - 1
            ).isEmpty
        )
        #expect(
            registry.expiredDevices(
                forgetAfter: .seconds(7 * 86400),
                bluetoothForgetAfter: .seconds(86400),
                now: t0 + day
            ) == [untouched]
        )
        #expect(registry.expiredDevices(forgetAfter: .seconds(7 * 86400), now: t0 + day).isEmpty)
        #expect(
            Set(
                registry.expiredDevices(
                    forgetAfter: .seconds(7 * 86400),
                    bluetoothForgetAfter: .seconds(86400),
                    now: t0 + 7 * day
                )
            ) == Set(ids)
        )
    }
}
