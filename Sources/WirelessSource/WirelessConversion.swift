import Discovery
import DiscoveryTerms
import Nl80211

/// nl80211's values in the seam's terms: pure functions, tested without a kernel.
enum WirelessConversion {
    /// An access point from a BSS of the scan results, `lastSeen` on the daemon's clock (`now` minus the kernel's
    /// `SEEN_MS_AGO`; `now` when the kernel does not say).
    /// - Complexity: O(n) for n bytes of information elements.
    static func accessPoint(_ bss: Nl80211BSS, now: Duration) -> AccessPoint {
        // The probe response's (or last frame's) elements; the beacon's stand in when the kernel has none of those.
        let chosen = BeaconElements(
            bss.informationElements.isEmpty ? bss.beaconInformationElements ?? [] : bss.informationElements
        )
        let privacy = (bss.capability ?? 0) & 0x0010 != 0
        return AccessPoint(
            bssid: macAddress(bss.bssid),
            ssid: chosen.ssid,
            security: chosen.security(privacy: privacy),
            frequency: bss.frequency,
            signal: bss.signalMBM.map { $0.roundedDivision(by: 100) },
            lastSeen: now - .milliseconds(bss.seenMillisecondsAgo ?? 0),
            isConnected: bss.status == .associated
        )
    }

    /// A station interface in the seam's terms; its connection from the BSS the scan results mark associated.
    static func interface(_ interface: Nl80211Interface, results: [Nl80211BSS]) -> WirelessInterface {
        let connection = results.first { $0.status == .associated }.map { bss in
            let fromInterface = interface.ssid.flatMap { BeaconElements.ssid(of: $0) }
            return WirelessConnection(
                bssid: macAddress(bss.bssid),
                ssid: fromInterface ?? accessPoint(bss, now: .zero).ssid,
                frequency: bss.frequency
            )
        }
        return WirelessInterface(name: interface.name, isUp: interface.isUp, connection: connection)
    }

    /// `aa:bb:cc:dd:ee:ff`.
    static func macAddress(_ bytes: [UInt8]) -> String {
        bytes.map { byte in
            let hex = String(byte, radix: 16)
            return hex.count == 1 ? "0" + hex : hex
        }.joined(separator: ":")
    }
}

extension Int {
    /// The quotient rounded to the nearest integer, halves away from zero (-3050 mBm → -31 dBm).
    fileprivate func roundedDivision(by divisor: Int) -> Int {
        let (quotient, remainder) = quotientAndRemainder(dividingBy: divisor)
        guard 2 * Swift.abs(remainder) >= divisor else { return quotient }
        return self < 0 ? quotient - 1 : quotient + 1
    }
}
