import Foundation
import PeerScanModel
import Testing

/// The order of devices in the `networks` section (``Device/sortKey``): a strict order whatever the names, so that a
/// sort gives one order from every input order.
@Suite struct DeviceOrderTests {
    private func device(_ name: String?, id: Int) -> Device {
        var device = WireSamples.device()
        device.id = DeviceID(UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", id))!)
        device.displayName = name
        return device
    }

    /// `String`'s `<` orders neither of `"e\u{301}"` and `"\u{e9} "` before the other: sorted with it, these devices
    /// came out in their input order.
    @Test func namesStringsLessThanCannotOrderSortOneWayFromEveryInputOrder() {
        let devices = [
            device("f", id: 1), device("e\u{301}", id: 2), device("\u{e9} ", id: 3), device("d", id: 4),
            device("\u{e9}", id: 5), device(nil, id: 6),
        ]
        let expected = [4, 1, 2, 5, 3, 6]  // d, f, é (by id: decomposed and composed are one name), "é ", unnamed
        var orders: Set<[Int]> = []
        for rotation in 0..<devices.count {
            let input = Array(devices[rotation...] + devices[..<rotation])
            for candidate in [input, input.reversed()] {
                orders.insert(candidate.sorted { $0.sortKey < $1.sortKey }.map { Int($0.id.description.suffix(12))! })
            }
        }
        #expect(orders == [expected])
    }
}
