import Discovery
import Foundation
import Logging
import Testing

@testable import BluetoothSource

/// The source against a real bluetoothd: run only where one runs with an advertiser in range — in the radio guest,
/// by Tests/Radio/test_bluetooth.py, which sets `PEERSCAN_BLUETOOTH_LIVE_ADDRESS` (and `…_NAME`, `…_COMPANY`).
/// It waits up to 90 s: in a guest under emulation on a loaded host the first report took 21 s (3 s idle).
@Suite(
    .enabled(if: ProcessInfo.processInfo.environment["PEERSCAN_BLUETOOTH_LIVE_ADDRESS"] != nil),
    .timeLimit(.minutes(2))
)
struct BluetoothLiveTests {
    @Test func theAdvertiserIsReportedWithItsNameAndManufacturerData() async throws {
        let environment = ProcessInfo.processInfo.environment
        let address = try #require(environment["PEERSCAN_BLUETOOTH_LIVE_ADDRESS"]).lowercased()
        let source = BluetoothDiscoverySource(
            adapters: environment["PEERSCAN_BLUETOOTH_LIVE_ADAPTER"].map { [$0] } ?? [],
            clock: .continuous,
            logger: Logger(label: "live")
        )
        source.setBrowsing(true)
        enum Outcome: Sendable {
            case found(BluetoothAdvertisement)
            case timedOut
            case ended
        }
        let outcome = await withTaskGroup(of: Outcome.self) { group in
            group.addTask {
                try? await source.run()  // it logs its failures and idles; it ends when cancelled below
                return .ended
            }
            group.addTask {
                for await event in source.events {
                    if case .bluetooth(.advertised(let advertisement)) = event, advertisement.address == address {
                        return .found(advertisement)
                    }
                }
                return .ended
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(90))
                return .timedOut
            }
            var first = Outcome.ended
            for await outcome in group {
                if case .ended = outcome { continue }
                first = outcome
                break
            }
            group.cancelAll()
            return first
        }
        guard case .found(let found) = outcome else {
            Issue.record("no advertisement from \(address) in 90 s")
            return
        }
        let advertisement = found
        print("live: \(advertisement)")
        #expect(advertisement.name == environment["PEERSCAN_BLUETOOTH_LIVE_NAME"])
        if let company = environment["PEERSCAN_BLUETOOTH_LIVE_COMPANY"].flatMap({ UInt16($0, radix: 16) }) {
            #expect(advertisement.manufacturerData.map(\.companyID) == [company])
        }
        #expect(advertisement.addressType == .public)
    }
}
