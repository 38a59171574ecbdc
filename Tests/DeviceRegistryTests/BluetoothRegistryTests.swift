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
}
