/// The security a Wi-Fi network advertises, from its RSN and WPA information elements and its privacy capability bit;
/// its wire form is the raw value.
///
/// Ordered from weakest to strongest (``strength``), so that a known SSID seen with weaker security than before can be
/// told (an evil twin's sign).
public enum WiFiSecurity: String, Hashable, Sendable, Codable, CaseIterable {
    /// No encryption.
    case open
    /// Opportunistic Wireless Encryption (Enhanced Open): encrypted, not authenticated (RSN AKM suite 18).
    case owe
    /// WEP: the privacy bit without an RSN or WPA element.
    case wep
    /// WPA (the WPA vendor element) with a pre-shared key.
    case wpaPersonal = "wpa-personal"
    /// WPA2 with a pre-shared key (RSN AKM 2 or 6).
    case wpa2Personal = "wpa2-personal"
    /// WPA2 and WPA3 personal both offered (transition mode: RSN AKM 2 or 6 and 8).
    case wpa3Transition = "wpa3-transition"
    /// WPA3 personal (SAE only: RSN AKM 8 or 24).
    case wpa3Personal = "wpa3-personal"
    /// 802.1X (RSN or WPA AKM 1, 5, 11, 12 or 13).
    case enterprise

    /// Its rank: a higher one resists more attacks. OWE ranks above WEP's broken keys only as an encrypted link;
    /// enterprise ranks with WPA3 personal.
    public var strength: Int {
        switch self {
        case .open: 0
        case .wep: 1
        case .owe: 2
        case .wpaPersonal: 3
        case .wpa2Personal: 4
        case .wpa3Transition: 5
        case .wpa3Personal, .enterprise: 6
        }
    }

    /// Whether a device must know a secret (or an identity) to join.
    public var isSecured: Bool { self != .open && self != .owe }
}

/// A Wi-Fi band, derived from a channel's centre frequency.
public enum WiFiBand: String, Hashable, Sendable, Codable, CaseIterable {
    case band2_4GHz = "2.4GHz"
    case band5GHz = "5GHz"
    case band6GHz = "6GHz"
    case band60GHz = "60GHz"
    /// 802.11ah (sub-1 GHz).
    case band900MHz = "900MHz"

    /// The band of a centre frequency in MHz; `nil` outside every Wi-Fi band.
    public init?(frequency: Int) {
        switch frequency {
        case 2400..<2500: self = .band2_4GHz
        case 4900..<5925: self = .band5GHz
        case 5925...7125: self = .band6GHz
        case 57000...71000: self = .band60GHz
        case 750..<1000: self = .band900MHz
        default: return nil
        }
    }
}

/// The channel number of a centre frequency in MHz (IEEE 802.11's numbering, as `iw` prints it); `nil` for a
/// frequency outside the 2.4, 5 and 6 GHz bands.
public func wifiChannel(frequency: Int) -> Int? {
    switch frequency {
    case 2484: 14
    case 2412...2472: (frequency - 2407) / 5
    case 5935: 2  // 6 GHz channel 2
    case 5955...7115: (frequency - 5950) / 5
    case 4910...4980: (frequency - 4000) / 5
    case 5000...5925: (frequency - 5000) / 5
    default: nil
    }
}
