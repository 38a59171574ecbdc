// The alerts' wire form: the alert's id lowercase, its time RFC 3339 UTC with milliseconds that reads back to the same
// millisecond, and every event and priority word as the interface lists them.

import Foundation
import PeerScanModel
import SeededRandom
import Testing

private func makeAlert(created: Date, device: DeviceID? = nil) -> Alert {
    Alert(
        id: UUID(uuidString: "6F1C0D2E-4B7A-4C1E-9F00-0123456789AB")!,
        event: .newDevice,
        created: created,
        device: device,
        title: "New device: tv",
        message: "tv joined the network.",
        priority: .default,
        tags: ["new"],
        link: nil,
        fields: [:]
    )
}

@Suite struct AlertWireTests {
    @Test func theIDIsLowercaseAndTheTimeRFC3339UTCWithMilliseconds() {
        let wire = PeerScanWire.Alert(makeAlert(created: Date(timeIntervalSince1970: 1_800_000_000.25)))
        #expect(wire.id == "6f1c0d2e-4b7a-4c1e-9f00-0123456789ab")
        #expect(wire.created == "2027-01-15T08:00:00.250Z")
        #expect(wire.event == "new-device")
        #expect(wire.device == nil)
    }

    @Test func createdReadsBackToTheSameMillisecond() throws {
        var random = SeededGenerator(seed: 38)
        for _ in 0..<500 {
            let milliseconds = Int64.random(in: 0...4_102_444_800_000, using: &random)
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            let text = PeerScanWire.Alert(makeAlert(created: date)).created
            let parsed = try Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
            #expect(Int64((parsed.timeIntervalSince1970 * 1000).rounded()) == milliseconds, "\(text)")
        }
    }

    @Test func theEventAndPriorityWordsAreTheInterfaces() {
        let definition = PeerScanWire.definition
        for event in AlertEvent.allCases { #expect(definition.contains(event.rawValue)) }
        #expect(AlertPriority.allCases.map(\.rawValue) == ["min", "low", "default", "high", "urgent"])
    }
}
