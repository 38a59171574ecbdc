import Foundation

/// A Bluetooth Identity Resolving Key (Core spec, Vol 3, Part H, 2.4.2.1): 16 bytes, most significant octet first,
/// the Core spec's order. BlueZ writes keys the other way round, least significant octet first as the management API
/// carries them (`Key=` under `[IdentityResolvingKey]` in /var/lib/bluetooth/…/info, `btmgmt privacy on IRK`).
///
/// It is a secret (whoever has it can follow the device across its private addresses): ``description`` never shows
/// it, so that no log line, list or MQTT payload that interpolates one leaks it; ``hexDigits`` is for the registry
/// and the key file only.
public struct IdentityResolvingKey: Hashable, Sendable, CustomStringConvertible {
    /// The key's 16 bytes, most significant first.
    public let bytes: [UInt8]

    /// Parses 32 hex digits (either case; a `0x` prefix and surrounding white space are allowed).
    /// - Returns: `nil` for anything else.
    public init?(hex text: String) {
        var digits = Substring(text.trimmingCharacters(in: .whitespacesAndNewlines))
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
        guard digits.count == 32, digits.allSatisfy(\.isHexDigit) else { return nil }
        var bytes: [UInt8] = []
        var index = digits.startIndex
        while index < digits.endIndex {
            let next = digits.index(index, offsetBy: 2)
            guard let byte = UInt8(digits[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        self.bytes = bytes
    }

    /// Parses a key as people copy it, the forms Home Assistant's `private_ble_device` takes: 32 hex digits, most
    /// significant octet first (as ESPresense and Home Assistant show it), or the iOS keychain's base64 form (the
    /// "Remote IRK", 24 characters ending in `=`), least significant octet first; either with an `irk:` prefix.
    /// - Returns: `nil` for anything else.
    public init?(copied text: String) {
        var trimmed = Substring(text.trimmingCharacters(in: .whitespacesAndNewlines))
        if trimmed.hasPrefix("irk:") { trimmed = trimmed.dropFirst(4) }
        if trimmed.hasSuffix("=") {
            guard let decoded = Data(base64Encoded: String(trimmed)), decoded.count == 16 else { return nil }
            self.init(bytes: decoded.reversed())
        } else {
            self.init(hex: String(trimmed))
        }
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The 32 lowercase hex digits: for the registry and the key file, never for logs or output.
    public var hexDigits: String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// `IRK(redacted)`: the key itself is never shown.
    public var description: String { "IRK(redacted)" }
}
