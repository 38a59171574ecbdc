// nl80211's messages, captured as bytes, through the parsers the client and the monitor use on live ones: scan
// results, interfaces, multicast events and link changes, and what a malformed capture yields (nothing, no trap).

import Testing

@testable import Nl80211

@Suite struct Nl80211ParsingTests {
    typealias B = NetlinkBytes

    static let bssid: [UInt8] = [0x02, 0x11, 0x22, 0x33, 0x44, 0x55]

    static func scanResult(_ bss: [[UInt8]], index: UInt32 = 4) -> [UInt8] {
        B.nl80211(B.Command.newScanResults, [B.u32(B.Attribute.interfaceIndex, index), B.nested(B.Attribute.bss, bss)])
    }

    @Test func aScanResultIsReadWhole() throws {
        let bytes = Self.scanResult([
            B.attribute(B.BSS.bssid, Self.bssid),
            B.u32(B.BSS.frequency, 2437),
            B.u16(B.BSS.capability, 0x0431),
            B.attribute(B.BSS.informationElements, [0, 3, 0x61, 0x62, 0x63]),
            B.u32(B.BSS.signalMBM, UInt32(bitPattern: -4500)),
            B.u32(B.BSS.status, 1),
            B.u32(B.BSS.seenMillisecondsAgo, 120),
            B.attribute(B.BSS.beaconInformationElements, [0, 0]),
        ])
        let bss = try #require(CapturedMessage.bss(bytes))
        #expect(
            bss
                == Nl80211BSS(
                    bssid: Self.bssid,
                    frequency: 2437,
                    signalMBM: -4500,
                    seenMillisecondsAgo: 120,
                    capability: 0x0431,
                    status: .associated,
                    informationElements: [0, 3, 0x61, 0x62, 0x63],
                    beaconInformationElements: [0, 0]
                )
        )
    }

    @Test func aScanResultWithOnlyWhatIsRequiredLeavesTheRestAbsent() throws {
        let bss = try #require(
            CapturedMessage.bss(Self.scanResult([B.attribute(B.BSS.bssid, Self.bssid), B.u32(B.BSS.frequency, 5180)]))
        )
        #expect(bss.frequency == 5180)
        #expect(bss.signalMBM == nil && bss.seenMillisecondsAgo == nil && bss.capability == nil && bss.status == nil)
        #expect(bss.informationElements == [] && bss.beaconInformationElements == nil)
    }

    @Test(arguments: [
        ("a five-byte BSSID", [B.attribute(B.BSS.bssid, [1, 2, 3, 4, 5]), B.u32(B.BSS.frequency, 2412)]),
        ("no frequency", [B.attribute(B.BSS.bssid, bssid)]),
        ("a two-byte frequency", [B.attribute(B.BSS.bssid, bssid), B.u16(B.BSS.frequency, 2412)]),
        ("no BSSID", [B.u32(B.BSS.frequency, 2412)]),
    ])
    func anIncompleteScanResultIsLeftOut(_ what: String, _ attributes: [[UInt8]]) {
        #expect(CapturedMessage.bss(Self.scanResult(attributes)) == nil, "\(what)")
    }

    @Test func aStatusTheKernelMayAddIsAbsentNotWrong() throws {
        let bss = try #require(
            CapturedMessage.bss(
                Self.scanResult([
                    B.attribute(B.BSS.bssid, Self.bssid), B.u32(B.BSS.frequency, 2412), B.u32(B.BSS.status, 9),
                ])
            )
        )
        #expect(bss.status == nil)
    }

    @Test func aMessageWithoutABSSIsNoScanResult() {
        let bytes = B.nl80211(B.Command.newScanResults, [B.u32(B.Attribute.interfaceIndex, 4)])
        #expect(CapturedMessage.bss(bytes) == nil)
    }

    @Test func anInterfaceIsRead() throws {
        let bytes = B.nl80211(
            B.Command.newInterface,
            [
                B.u32(B.Attribute.interfaceIndex, 7),
                B.string(B.Attribute.interfaceName, "wlnone9"),
                B.u32(B.Attribute.interfaceType, 2),
                B.attribute(B.Attribute.ssid, Array("home".utf8)),
                B.u32(B.Attribute.frequency, 5200),
            ]
        )
        let interface = try #require(CapturedMessage.interface(bytes))
        #expect(
            interface
                == Nl80211Interface(
                    index: 7,
                    name: "wlnone9",
                    type: .station,
                    ssid: Array("home".utf8),
                    frequency: 5200,
                    isUp: false  // no such interface on this host
                )
        )
        #expect(interface.type.description == "station")
    }

    @Test func anInterfaceWithoutANameOrIndexIsLeftOut() {
        let unnamed = B.nl80211(B.Command.newInterface, [B.u32(B.Attribute.interfaceIndex, 7)])
        let unnumbered = B.nl80211(B.Command.newInterface, [B.string(B.Attribute.interfaceName, "wlan0")])
        #expect(CapturedMessage.interface(unnamed) == nil)
        #expect(CapturedMessage.interface(unnumbered) == nil)
    }

    @Test(arguments: [
        (B.Command.newScanResults, Nl80211Event.scanFinished(interfaceIndex: 4)),
        (B.Command.scanAborted, .scanAborted(interfaceIndex: 4)),
        (B.Command.connect, .connectionChanged(interfaceIndex: 4)),
        (B.Command.disconnect, .connectionChanged(interfaceIndex: 4)),
        (B.Command.newInterface, .interfacesChanged),
        (B.Command.deleteInterface, .interfacesChanged),
        (B.Command.setInterface, .interfacesChanged),
    ])
    func aMulticastMessageIsItsEvent(_ command: UInt8, _ event: Nl80211Event) {
        #expect(CapturedMessage.event(B.nl80211(command, [B.u32(B.Attribute.interfaceIndex, 4)])) == event)
    }

    @Test func eventsASourceNeedNotFollowAreDropped() {
        #expect(CapturedMessage.event(B.nl80211(B.Command.newStation, [B.u32(B.Attribute.interfaceIndex, 4)])) == nil)
        #expect(CapturedMessage.event(B.nl80211(B.Command.newScanResults, [])) == nil, "no interface to dump")
        #expect(CapturedMessage.event(B.nl80211(B.Command.newInterface, [])) == .interfacesChanged)
    }

    @Test func aLinkChangeNamesItsInterface() {
        #expect(CapturedMessage.linkEvent(B.link(type: 16, index: 12)) == .linkChanged(interfaceIndex: 12))
        #expect(CapturedMessage.linkEvent(B.link(type: 17, index: 3)) == .linkChanged(interfaceIndex: 3))
        #expect(CapturedMessage.linkEvent(B.link(type: 20, index: 3)) == nil, "RTM_NEWADDR is no link change")
        let truncated = B.message(type: 16, [0, 0, 1, 0, 3, 0, 0, 0])
        #expect(CapturedMessage.linkEvent(truncated) == nil, "shorter than an ifinfomsg")
    }

    @Test func aCaptureShorterThanItsDeclaredLengthIsNotRead() {
        let whole = Self.scanResult([B.attribute(B.BSS.bssid, Self.bssid), B.u32(B.BSS.frequency, 2412)])
        #expect(CapturedMessage.bss(whole) != nil)
        #expect(CapturedMessage.bss(Array(whole.dropLast(4))) == nil)
        #expect(CapturedMessage.bss(Array(whole.prefix(10))) == nil)
        #expect(CapturedMessage.bss([]) == nil)
    }

    @Test func anAttributeLongerThanItsMessageIsIgnored() {
        var bytes = Self.scanResult([B.attribute(B.BSS.bssid, Self.bssid), B.u32(B.BSS.frequency, 2412)])
        bytes[28] = 0xFF  // the BSS attribute's length (after 16 + 4 + 8 bytes) now runs past the message
        #expect(CapturedMessage.bss(bytes) == nil)
    }
}
