import PeerScanModel

/// A device's Bluetooth facts as people read them: `ᛒ 00:1a:7d:da:71:13 ▂▄▆ ` — the Bluetooth rune, the address it
/// advertises under (`(ephemeral)` after a private one no IRK resolves) and its signal as bars.
public enum BluetoothText {
    /// The Bluetooth rune that marks a device heard over Bluetooth LE.
    public static let marker = "ᛒ"

    /// `ᛒ ADDRESS BARS`, with `(ephemeral)` for an ephemeral device; `nil` for a device not heard over Bluetooth. The
    /// address comes from the daemon: escape the line it goes in.
    public static func summary(of device: Device) -> String? {
        guard let facts = device.bluetooth else { return nil }
        var parts = [marker, facts.address]
        if facts.isEphemeral { parts.append("(ephemeral)") }
        parts.append(WiFiText.bars(facts.bars))
        return parts.joined(separator: " ")  // not escaped: the caller escapes the line it makes
    }

    /// The organization to show: the OUI's vendor, else the manufacturer its advertisements name.
    public static func vendor(of device: Device) -> String? {
        device.vendor ?? device.bluetooth?.manufacturer
    }

    /// What changed in the Bluetooth facts: `bluetooth 00:… new`, `bluetooth gone`, `bluetooth address …`,
    /// `bars 3`, `manufacturer …`.
    static func changes(from old: BluetoothFacts?, to new: BluetoothFacts?) -> [String] {
        switch (old, new) {
        case (nil, nil): return []
        case (nil, let new?): return ["\(marker) \(new.address) new"]
        case (_?, nil): return ["\(marker) gone"]
        case (let old?, let new?):
            var parts: [String] = []
            if old.address != new.address { parts.append("\(marker) address \(new.address)") }
            if old.bars != new.bars { parts.append("bars \(new.bars)") }
            if old.manufacturer != new.manufacturer, let manufacturer = new.manufacturer {
                parts.append("manufacturer \(manufacturer)")
            }
            if old.isEphemeral != new.isEphemeral { parts.append(new.isEphemeral ? "ephemeral" : "resolved") }
            return parts
        }
    }
}
