import DiscoveryTerms

/// What a Wi-Fi source reads from a beacon's (or probe response's) information elements: the SSID and the security
/// elements. Pure parsing: no kernel needed.
///
/// Elements are `ID, length, body` triples (IEEE 802.11-2020 §9.4.2). A truncated element (a length running past the
/// end) ends the parse: the elements before it count, ``isTruncated`` says so. Never traps on any input.
public struct BeaconElements: Hashable, Sendable {
    /// The SSID element's body (element 0), as sent; `nil` without one.
    public var ssidBytes: [UInt8]?
    /// The RSN element's body (element 48), if any.
    public var rsn: [UInt8]?
    /// The WPA vendor element's body after its `00-50-F2:01` header, if any.
    public var wpa: [UInt8]?
    /// Whether the elements ended in a truncated one.
    public var isTruncated = false

    /// Parses the elements.
    /// - Complexity: O(n) for n bytes.
    public init(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            guard offset + 2 <= bytes.count, offset + 2 + Int(bytes[offset + 1]) <= bytes.count else {
                isTruncated = true
                return
            }
            let id = bytes[offset]
            let body = Array(bytes[(offset + 2)..<(offset + 2 + Int(bytes[offset + 1]))])
            offset += 2 + body.count
            switch id {
            case 0 where ssidBytes == nil: ssidBytes = body
            case 48 where rsn == nil: rsn = body
            case 221 where wpa == nil && body.starts(with: [0x00, 0x50, 0xF2, 0x01]): wpa = Array(body.dropFirst(4))
            default: break
            }
        }
    }

    /// The SSID as text (invalid UTF-8 replaced with U+FFFD); `nil` for a hidden network (no SSID element, an empty
    /// one, or one of zero bytes).
    public var ssid: String? { ssidBytes.flatMap(Self.ssid(of:)) }

    /// An SSID's bytes as text (invalid UTF-8 replaced); `nil` for a hidden one (empty, or all zero bytes).
    public static func ssid(of bytes: [UInt8]) -> String? {
        guard bytes.contains(where: { $0 != 0 }) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The security the elements and the capability field's privacy bit (`0x0010`) advertise: the RSN element's
    /// AKM suites first, then the WPA element, then the privacy bit (WEP), else open. An RSN or WPA element too short
    /// for what it declares is skipped as if absent.
    public func security(privacy: Bool) -> WiFiSecurity {
        if let rsn, let suites = Self.akmSuites(rsn, oui: [0x00, 0x0F, 0xAC]) {
            return Self.security(rsnSuites: suites)
        }
        if let wpa, let suites = Self.akmSuites(wpa, oui: [0x00, 0x50, 0xF2]) {
            return suites.contains(1) ? .enterprise : .wpaPersonal
        }
        return privacy ? .wep : .open
    }

    /// The security of an RSN element's AKM suite types (00-0F-AC:n). The FT and SHA-384 variants count with their
    /// base suite. An RSN element of suites none of which is known counts as WPA2 personal, the baseline of RSN.
    static func security(rsnSuites suites: [UInt8]) -> WiFiSecurity {
        let enterprise: Set<UInt8> = [1, 3, 5, 11, 12, 13, 14, 15, 16, 17, 22, 23]
        let psk: Set<UInt8> = [2, 4, 6, 19, 20]
        let sae: Set<UInt8> = [8, 9, 24, 25]
        if suites.contains(where: enterprise.contains) { return .enterprise }
        let hasPSK = suites.contains(where: psk.contains)
        let hasSAE = suites.contains(where: sae.contains)
        if hasPSK && hasSAE { return .wpa3Transition }
        if hasSAE { return .wpa3Personal }
        if hasPSK { return .wpa2Personal }
        if suites.contains(18) { return .owe }
        return .wpa2Personal
    }

    /// The AKM suite types of an RSN or WPA element body, or `nil` if the body is too short for what it declares.
    /// Its fields (version, group cipher, pairwise ciphers, AKM suites) may end early at a field boundary, as the
    /// standard allows: an absent AKM list means 802.1X (type 1). Suites of another OUI are left out.
    static func akmSuites(_ body: [UInt8], oui: [UInt8]) -> [UInt8]? {
        guard body.count >= 2 else { return nil }  // version
        guard body.count >= 6 else { return body.count == 2 ? [1] : nil }  // group cipher
        guard body.count >= 8 else { return body.count == 6 ? [1] : nil }
        let pairwise = Int(body[6]) | Int(body[7]) << 8
        let akmOffset = 8 + 4 * pairwise
        guard body.count >= akmOffset + 2 else { return body.count == akmOffset ? [1] : nil }
        let count = Int(body[akmOffset]) | Int(body[akmOffset + 1]) << 8
        let first = akmOffset + 2
        guard body.count >= first + 4 * count else { return nil }
        return (0..<count).compactMap { index in
            let suite = body[(first + 4 * index)..<(first + 4 * index + 4)]
            return suite.starts(with: oui) ? suite.last : nil
        }
    }
}
