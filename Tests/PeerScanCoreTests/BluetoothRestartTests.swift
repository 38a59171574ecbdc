import Discovery
import PeerScanModel
import Testing

@testable import PeerScanCore

/// A device with a known IRK keeps one id across a restart: the registry's keys and bindings seed the new table.
@Suite struct BluetoothRestartTests {
    @Test func rotatingAddressesKeepTheIDAcrossARestart() throws {
        let irk = try #require(IdentityResolvingKey(hex: "00112233445566778899aabbccddeeff"))
        let mac = "3c:22:fb:44:55:66"
        let phone = DeviceID.make(macAddress: mac)
        func table() -> DeviceTable {
            DeviceTable(
                presence: DeviceTable.Presence(offlineAfter: .seconds(60), forgetAfter: .seconds(600)),
                identities: DeviceIdentities(bindings: [.macAddress(mac): phone]),
                bluetooth: BluetoothSettings(away: .seconds(120), keys: [phone: irk])
            )
        }
        func heard(_ address: String, by table: inout DeviceTable) -> DeviceID? {
            table.observe(
                bluetooth: .advertised(
                    BluetoothAdvertisement(
                        adapter: "hci0",
                        address: address,
                        addressType: .resolvablePrivate,
                        name: nil,
                        appearance: nil,
                        manufacturerData: [],
                        serviceUUIDs: [],
                        rssi: -50,
                        lastSeen: .seconds(1)
                    )
                ),
                now: .seconds(1)
            )
            return table.takeChanges(now: .seconds(1)).changes.first?.device?.id
        }
        var before = table()
        #expect(heard(try IRKResolver.makeAddress(key: irk, prand: 0x11_1111), by: &before) == phone)
        var after = table()  // a restart: a new table from what the registry kept
        #expect(heard(try IRKResolver.makeAddress(key: irk, prand: 0x22_2222), by: &after) == phone)
    }
}

/// `--bluetooth-irk-file`: `DEVICE-ID IRK` lines, comments and blank lines; a bad line named, never its key.
@Suite struct IRKKeyFileTests {
    private let phone = DeviceID.make(macAddress: "3c:22:fb:44:55:66")

    @Test func linesCommentsAndBlankLinesAreRead() throws {
        let text = "# keys\n\n\(phone)  EC0234A357C8AD05341010A60A397D9B  # my phone\n"
        let keys = try IRKFileError.parseKeyFile(text, path: "/run/credentials/irks")
        #expect(keys == [phone: IdentityResolvingKey(hex: "ec0234a357c8ad05341010a60a397d9b")!])
        // The iOS keychain's base64 form (least significant octet first), as Home Assistant takes it.
        let copied = try IRKFileError.parseKeyFile("\(phone) irk:m305CqYQEDQFrchXozQC7A==\n", path: "irks")
        #expect(copied == keys)
    }

    @Test(arguments: [
        (
            "\(DeviceID.make(macAddress: "3c:22:fb:44:55:66")) ec0234a357c8ad05341010a60a397d", 1,
            "neither 32 hex digits"
        ),
        ("\n phone ec0234a357c8ad05341010a60a397d9b", 2, "not a device id"),
        ("ec0234a357c8ad05341010a60a397d9b", 1, "expected DEVICE-ID IRK"),
    ])
    func aBadLineIsNamedWithoutItsKey(text: String, line: Int, reason: String) {
        #expect {
            try IRKFileError.parseKeyFile(text, path: "irks")
        } throws: { error in
            guard let error = error as? IRKFileError else { return false }
            return error.line == line && error.reason.contains(reason) && !"\(error)".contains("ec0234")
        }
    }
}
