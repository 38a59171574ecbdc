/// A 48-bit MAC address parsed from text.
struct MACAddress {
    /// The address, its first octet in bits 47...40.
    var value: UInt64

    /// Parses `aa:bb:cc:dd:ee:ff` or `aa-bb-cc-dd-ee-ff`, in either case, with one separator throughout.
    ///
    /// - Complexity: O(1): the text is looked at only if it is 17 bytes long.
    init?(_ text: String) {
        let utf8 = text.utf8
        guard utf8.count == 17, let separator = utf8.dropFirst(2).first,
            separator == UInt8(ascii: ":") || separator == UInt8(ascii: "-")
        else { return nil }
        var value: UInt64 = 0
        for (index, byte) in utf8.enumerated() {
            if index % 3 == 2 {
                guard byte == separator else { return nil }
            } else {
                guard let digit = hexDigitValue(byte) else { return nil }
                value = value << 4 | UInt64(digit)
            }
        }
        self.value = value
    }

    /// Bit 0x02 of the first octet: assigned locally (by software), not by the IEEE.
    var isLocallyAdministered: Bool { value >> 40 & 0x02 != 0 }

    /// Bit 0x01 of the first octet: a group address (multicast, broadcast).
    var isMulticast: Bool { value >> 40 & 0x01 != 0 }
}

/// The value of one ASCII hex digit, in either case, or nil.
func hexDigitValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
}
