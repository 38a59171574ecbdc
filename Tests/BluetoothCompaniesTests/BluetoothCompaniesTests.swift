import Testing

@testable import BluetoothCompanies

@Suite struct BluetoothCompaniesTests {
    @Test(arguments: [
        (UInt16(0x004C), "Apple, Inc."),
        (0x0006, "Microsoft"),
        (0x0075, "Samsung Electronics Co. Ltd."),
        (0x0059, "Nordic Semiconductor ASA"),
        (0x0000, "Ericsson AB"),
    ])
    func knownCompanies(id: UInt16, name: String) {
        #expect(BluetoothCompanies.name(for: id) == name)
    }

    @Test func unassignedIdentifierHasNoName() {
        #expect(BluetoothCompanies.name(for: 0xF000) == nil)
        // 0xFFFF is the SIG's reserved default vendor id, listed with that meaning.
        #expect(BluetoothCompanies.name(for: 0xFFFF)?.hasPrefix("Bluetooth SIG Specification Reserved") == true)
    }

    @Test func tableIsComplete() {
        // bluetooth-numbers 1.1.2 assigns 3,413 identifiers; an update only adds.
        #expect(BluetoothCompanies.count >= 3413)
        #expect(BluetoothCompanies.sourceVersion.hasPrefix("bluetooth-numbers "))
    }

    @Test func parsesHexIdentifiersAndKeepsTabsOutOfNames() {
        let parsed = BluetoothCompanies.parse("004C\tApple, Inc.\n0A1B\tA \"quoted\" Co\n")
        #expect(parsed == [0x004C: "Apple, Inc.", 0x0A1B: "A \"quoted\" Co"])
    }
}
