import Foundation
import PeerScanModel
import Testing

@testable import PeerScanClient

private func sighting(
    _ value: String,
    _ first: String = "2026-11-20T08:00:00Z",
    _ last: String = "2026-11-24T09:00:00Z"
)
    -> PeerScanWire.Sighting
{
    PeerScanWire.Sighting(value: value, firstSeen: first, lastSeen: last)
}

private func known(
    _ name: String?,
    host: String? = nil,
    mac: String,
    present: Bool = true,
    online: Bool = true
) -> PeerScanWire.KnownDevice {
    PeerScanWire.KnownDevice(
        id: DeviceID(UUID()),
        name: name,
        present: present,
        online: online,
        firstSeen: "2026-11-20T08:00:00Z",
        lastSeen: "2026-11-24T09:00:00Z",
        vendor: nil,
        hostNames: host.map { [sighting($0)] } ?? [],
        macAddresses: [sighting(mac)],
        addresses: [sighting("10.0.0.5")]
    )
}

@Suite("known and show")
struct KnownDeviceTextTests {
    let nas = known("NAS", host: "nas.local", mac: "00:00:0c:00:00:01")
    let plug = known(nil, mac: "02:00:00:00:00:02", present: true, online: false)
    let old = known("Old Laptop", host: "laptop.local", mac: "02:00:00:00:00:03", present: false, online: false)

    @Test("a device is found by id, MAC address, name or host name (with or without .local), case-insensitively")
    func matching() {
        let all = [nas, plug, old]
        #expect(KnownDeviceText.matches(nas.id.description.uppercased(), in: all) == [nas])
        #expect(KnownDeviceText.matches("02:00:00:00:00:02", in: all) == [plug])
        #expect(KnownDeviceText.matches("02:00:00:00:00:02".uppercased(), in: all) == [plug])
        #expect(KnownDeviceText.matches("nas", in: all) == [nas])
        #expect(KnownDeviceText.matches("NAS.local.", in: all) == [nas])
        #expect(KnownDeviceText.matches("old laptop", in: all) == [old])
        #expect(KnownDeviceText.matches("printer", in: all).isEmpty)
        let twin = known("NAS", host: "nas-2.local", mac: "00:00:0c:00:00:09")
        #expect(KnownDeviceText.matches("nas", in: all + [twin]).count == 2, "an ambiguous name matches both")
    }

    @Test("several devices match: each listed on a line of its own, the names devices published escaped")
    func ambiguousMatchEscapesNames() throws {
        let forged = known("nas\npeerscanctl: forgot everything\u{1b}[2J", host: "nas.local", mac: "00:00:0c:00:00:08")
        let twin = known("nas\u{9b}31m", host: "nas.local", mac: "00:00:0c:00:00:09")  // an older host, say
        let error = #expect(throws: ClientFailure.self) { try KnownDeviceText.match("nas", in: [forged, twin]) }
        let message = try #require(error).message
        #expect(
            message == """
                2 devices match nas; give one's id:
                  \(forged.id)  nas\\npeerscanctl: forgot everything\\e[2J
                  \(twin.id)  nas\\u{9b}31m
                """
        )
        #expect(try KnownDeviceText.match("00:00:0c:00:00:08", in: [forged, twin]) == forged.id)
        let none = #expect(throws: ClientFailure.self) { try KnownDeviceText.match("\u{1b}]0;x\u{7}", in: [twin]) }
        #expect(none?.message == "no device is named \\e]0;x\\u{7} or has that MAC address (see: peerscanctl known)")
    }

    @Test("the known table: state online/offline/absent, last seen now while online, a nameless device by its MAC")
    func table() {
        let lines = KnownDeviceText.table([nas, plug, old])
        #expect(lines.count == 4)
        #expect(lines[0].hasPrefix("NAME "))
        #expect(lines[1].hasPrefix("NAS ") && lines[1].contains(" online ") && lines[1].contains(" now "))
        #expect(lines[2].hasPrefix("02:00:00:00:00:02 ") && lines[2].contains(" offline "))
        #expect(lines[2].contains("2026-11-24T09:00:00Z"))
        #expect(
            lines[3].hasPrefix("Old Laptop ") && lines[3].contains(" absent ") && lines[3].hasSuffix(old.id.description)
        )
        #expect(KnownDeviceText.table([]) == ["peerscand remembers no device yet."])
    }

    @Test("show: the device, then each host name, MAC address and address with when it was first and last seen")
    func details() {
        var evil = old
        evil.name = "Old\u{1b}[2JLaptop"
        let lines = KnownDeviceText.details(PeerScanWire.GetDeviceReply(device: nil, history: evil))
        #expect(lines.contains("state:       absent"))
        #expect(lines.contains("name:        Old\\e[2JLaptop"), "control characters escaped")
        #expect(lines.contains("host names:"))
        #expect(lines.contains { $0.hasPrefix("  laptop.local") && $0.contains("first 2026-11-20T08:00:00Z") })
        #expect(lines.contains("addresses:"))
        #expect(!lines.contains("services:"))
    }

    @Test("GetDevice's reply has the history's fields at its top level, and the item")
    func replyShape() throws {
        let reply = PeerScanWire.GetDeviceReply(device: nil, history: nas)
        let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(reply)) as? [String: Any]
        #expect(object?["id"] as? String == nas.id.description)
        #expect(object?["firstSeen"] as? String == "2026-11-20T08:00:00Z")
        let decoded = try JSONDecoder().decode(PeerScanWire.GetDeviceReply.self, from: JSONEncoder().encode(reply))
        #expect(decoded.history == nas && decoded.device == nil)
    }
}
