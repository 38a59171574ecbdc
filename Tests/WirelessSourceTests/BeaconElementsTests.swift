import PeerScanModel
import Testing

@testable import WirelessSource

/// Builds an element: ID, length, body.
func element(_ id: UInt8, _ body: [UInt8]) -> [UInt8] { [id, UInt8(body.count)] + body }

/// An RSN element body (version 1, CCMP group and pairwise) with the given AKM suite types of 00-0F-AC.
func rsnBody(akms: [UInt8]) -> [UInt8] {
    [0x01, 0x00, 0x00, 0x0F, 0xAC, 0x04, 0x01, 0x00, 0x00, 0x0F, 0xAC, 0x04, UInt8(akms.count), 0x00]
        + akms.flatMap { [0x00, 0x0F, 0xAC, $0] } + [0x00, 0x00]
}

/// A WPA vendor element (00-50-F2:01, version 1, TKIP) with the given AKM suite types of 00-50-F2.
func wpaElement(akms: [UInt8]) -> [UInt8] {
    element(
        221,
        [
            0x00, 0x50, 0xF2, 0x01, 0x01, 0x00, 0x00, 0x50, 0xF2, 0x02, 0x01, 0x00, 0x00, 0x50, 0xF2, 0x02,
            UInt8(akms.count), 0x00,
        ] + akms.flatMap { [0x00, 0x50, 0xF2, $0] }
    )
}

@Suite struct BeaconElementsTests {
    @Test func theSSIDIsText() {
        let elements = BeaconElements(element(0, Array("home".utf8)) + element(1, [0x82, 0x84]))
        #expect(elements.ssid == "home")
        #expect(!elements.isTruncated)
    }

    @Test(arguments: [[UInt8](), [0, 0, 0, 0]])
    func anEmptyOrZeroSSIDIsHidden(ssid: [UInt8]) {
        #expect(BeaconElements(element(0, ssid)).ssid == nil)
    }

    @Test func noSSIDElementIsHidden() {
        #expect(BeaconElements(element(1, [0x82])).ssid == nil)
    }

    @Test func invalidUTF8IsReplaced() {
        #expect(BeaconElements(element(0, [0x63, 0x61, 0x66, 0xC3])).ssid == "caf\u{FFFD}")
    }

    @Test(arguments: [
        ([UInt8(1)], WiFiSecurity.enterprise), ([5], .enterprise), ([11], .enterprise), ([12], .enterprise),
        ([13], .enterprise), ([2], .wpa2Personal), ([6], .wpa2Personal), ([8], .wpa3Personal), ([24], .wpa3Personal),
        ([2, 8], .wpa3Transition), ([8, 6], .wpa3Transition), ([18], .owe), ([2, 1], .enterprise),
    ])
    func theRSNElementsAKMSuitesDecide(akms: [UInt8], expected: WiFiSecurity) {
        let elements = BeaconElements(element(0, Array("x".utf8)) + element(48, rsnBody(akms: akms)))
        #expect(elements.security(privacy: true) == expected)
    }

    @Test func theWPAVendorElementIsWPA() {
        #expect(BeaconElements(wpaElement(akms: [2])).security(privacy: true) == .wpaPersonal)
        #expect(BeaconElements(wpaElement(akms: [1])).security(privacy: true) == .enterprise)
    }

    @Test func rsnWinsOverWPA() {
        let elements = BeaconElements(wpaElement(akms: [2]) + element(48, rsnBody(akms: [2])))
        #expect(elements.security(privacy: true) == .wpa2Personal)
    }

    @Test func thePrivacyBitAloneIsWEPAndNothingIsOpen() {
        let elements = BeaconElements(element(0, Array("old".utf8)))
        #expect(elements.security(privacy: true) == .wep)
        #expect(elements.security(privacy: false) == .open)
    }

    @Test func anRSNElementEndingAtAFieldBoundaryMeans8021X() {
        #expect(BeaconElements(element(48, [0x01, 0x00])).security(privacy: true) == .enterprise)
        #expect(
            BeaconElements(element(48, [0x01, 0x00, 0x00, 0x0F, 0xAC, 0x04])).security(privacy: true) == .enterprise
        )
    }

    @Test func anRSNElementTruncatedInsideAListIsSkipped() {
        // Declares two AKM suites, carries one: skipped, so the privacy bit decides.
        let body = Array(rsnBody(akms: [2]).prefix(14)) + [0x00, 0x0F, 0xAC, 0x02]
        var truncated = body
        truncated[12] = 2
        #expect(BeaconElements(element(48, truncated)).security(privacy: true) == .wep)
        #expect(BeaconElements(element(48, [0x01])).security(privacy: false) == .open)
    }

    @Test func aTruncatedElementEndsTheParseAndKeepsWhatCameBefore() {
        let bytes = element(0, Array("home".utf8)) + [48, 20, 0x01, 0x00]
        let elements = BeaconElements(bytes)
        #expect(elements.isTruncated)
        #expect(elements.ssid == "home")
        #expect(elements.rsn == nil)
        #expect(BeaconElements([0]).isTruncated)
    }

    /// Every prefix of every real beacon, and seeded random bytes: parsed without a trap.
    @Test func noInputTraps() throws {
        var inputs = try HwsimFixture.load().flatMap { bss in
            (0...bss.informationElements.count).map { Array(bss.informationElements.prefix($0)) }
        }
        var generator = SplitMix64(seed: 25)
        for _ in 0..<2000 {
            let count = Int(generator.next() % 64)
            // Mostly security elements, so their bodies get exercised.
            inputs.append(
                (0..<count).map { index in
                    index % 9 == 0
                        ? [48, 221, 0][Int(generator.next() % 3)] : UInt8(truncatingIfNeeded: generator.next())
                }
            )
        }
        var truncated = 0
        for input in inputs {
            let elements = BeaconElements(input)
            _ = elements.security(privacy: true)
            _ = elements.ssid
            if elements.isTruncated { truncated += 1 }
        }
        #expect(truncated > 0, "some inputs end inside an element")
    }
}

/// A replayable generator (SplitMix64).
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
