import Foundation
import PeerScanCore
import PeerScanModel
import Testing

@testable import PeerScanClient

private func tag(bars: Int = 3, ephemeral: Bool = false) -> Device {
    Device(
        id: DeviceID(UUID(uuidString: "00000000-0000-4000-8000-000000000042")!),
        hostName: nil,
        displayName: "Tag",
        addresses: [],
        interfaces: [],
        services: [],
        bluetooth: BluetoothFacts(
            address: "00:1a:7d:da:71:13",
            addressType: .public,
            name: "Tag",
            manufacturer: "Apple, Inc.",
            bars: bars,
            isEphemeral: ephemeral
        )
    )
}

@Suite("Bluetooth devices in list and watch")
struct BluetoothTextTests {
    @Test("list marks a Bluetooth device with the rune, its address and bars, and its manufacturer")
    func listed() {
        let lines = SnapshotTable.render(makeSnapshot(devices: [tag()]))
        #expect(lines.last == "Tag   online  -     -    Apple, Inc.  ᛒ 00:1a:7d:da:71:13 ▂▄▆   -")
    }

    @Test("watch says it is Bluetooth, and what of it changed")
    func watched() {
        #expect(
            ChangeDescription.summary(of: tag(ephemeral: true))
                == "Tag [Apple, Inc.] ᛒ 00:1a:7d:da:71:13 (ephemeral) ▂▄▆ "
        )
        #expect(ChangeDescription.changeSummary(from: tag(), to: tag(bars: 1)).contains("bars 1"))
        #expect(BluetoothText.changes(from: nil, to: tag().bluetooth) == ["ᛒ 00:1a:7d:da:71:13 new"])
    }
}
