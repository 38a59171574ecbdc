import Foundation
import PeerScanModel
import Testing

/// Labels on the wire: the item's `label` and `important`, a known device's `label`, `note`, `important`, and the
/// edit SetDeviceLabel's parameters ask for.
@Suite struct LabelWireTests {
    @Test func aLabelledKnownDeviceRoundTripsAndOneWithoutLabelsIsNotImportant() throws {
        let known = WireSamples.knownDevice()
        let encoded = try PeerScanWire.makeJSONEncoder().encode(known)
        #expect(try JSONDecoder().decode(PeerScanWire.KnownDevice.self, from: encoded) == known)

        var object = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        for key in ["label", "note", "important"] { object[key] = nil }
        let older = try JSONDecoder().decode(
            PeerScanWire.KnownDevice.self,
            from: JSONSerialization.data(withJSONObject: object)
        )
        #expect(older.label == nil && older.note == nil && older.important == false)
        #expect(older.id == known.id && older.hostNames == known.hostNames)
    }

    @Test func aLabelledItemRoundTripsAndItsDisplayNameIsTheLabel() throws {
        let found = WireSamples.device()
        let labelled = found.labelled(DeviceLabel(name: "Den TV", isImportant: false))
        #expect(labelled.displayName == "Den TV" && labelled.assignedName == "Den TV" && !labelled.isImportant)
        #expect(found.labelled(.none).displayName == found.displayName, "no name: the one found stays")
        let data = try PeerScanWire.makeJSONEncoder().encode(ScanItem.device(labelled))
        #expect(try JSONDecoder().decode(ScanItem.self, from: data) == .device(labelled))
        #expect(Device.changedFields(from: found, to: labelled) == ["name", "label", "important"])
    }

    @Test func theParametersEditOnlyWhatTheyGive() {
        let label = DeviceLabel(name: "A", note: "n", isImportant: true)
        #expect(PeerScanWire.SetDeviceLabelParameters(id: "x").edit.applied(to: label) == label)
        #expect(PeerScanWire.SetDeviceLabelParameters(id: "x", note: "").edit.applied(to: label).note == nil)
        #expect(
            PeerScanWire.SetDeviceLabelParameters(id: "x", name: "B", important: false).edit.applied(to: label)
                == DeviceLabel(name: "B", note: "n", isImportant: false)
        )
    }
}
