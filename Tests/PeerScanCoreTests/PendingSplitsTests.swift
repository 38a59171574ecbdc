import PeerScanModel
import Testing

@testable import PeerScanCore

/// The pending splits on their own: a displaced device's item is handed back once, a split-off device is known once,
/// and the end of a take forgets both.
@Suite struct PendingSplitsTests {
    let tv = DeviceID.make(hostName: "tv.local")
    let phone = DeviceID.make(hostName: "phone.local")

    var tvItem: ScanItem {
        .device(
            Device(
                id: tv,
                hostName: "tv.local",
                displayName: "tv",
                addresses: ["10.0.0.5"],
                interfaces: ["lan0"],
                services: []
            )
        )
    }

    @Test func aDisplacedItemAndASplitOffDeviceAreTakenOnce() {
        var splits = PendingSplits()
        splits.displace(tv, item: tvItem)
        splits.noteSplitOff(phone)

        let displaced = splits.takeDisplaced(tv)
        let again = splits.takeDisplaced(tv)
        #expect(displaced == tvItem)
        #expect(again == nil, "published again: no longer displaced")
        let notSplit = splits.takeSplitOff(tv)
        let split = splits.takeSplitOff(phone)
        let splitAgain = splits.takeSplitOff(phone)
        #expect(!notSplit)
        #expect(split)
        #expect(!splitAgain, "published now: its line is said")
    }

    @Test func removeAllForgetsEverySplit() {
        var splits = PendingSplits()
        splits.displace(tv, item: tvItem)
        splits.noteSplitOff(phone)
        splits.removeAll()
        let displaced = splits.takeDisplaced(tv)
        let split = splits.takeSplitOff(phone)
        #expect(displaced == nil)
        #expect(!split)
    }
}
