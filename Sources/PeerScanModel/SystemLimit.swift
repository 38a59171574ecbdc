/// A limit of the system that the network reached — or one of peerscand's own caps on what radios bring (the Wi-Fi
/// networks listed, `wifi-networks`; the Bluetooth devices listed, `bluetooth-devices`), reported the same way: what
/// is beyond it may not be seen.
///
/// JSON form (an element of the `host` item's `limits`): `{"name": String, "value": Int, "setting": String}`.
public struct SystemLimit: Hashable, Sendable, Codable {
    /// What is full, e.g. `avahi-cache eth0 ipv4`, `neighbour-table ipv6`, `wifi-networks` or `bluetooth-devices`.
    public var name: String
    /// How many entries peerscand counts there (for Avahi's cache, an estimate: avahi-daemon does not tell).
    public var value: Int
    /// The setting to raise, with its current value, e.g. `net.ipv4.neigh.default.gc_thresh3=1024`.
    public var setting: String

    /// Creates a limit reached.
    public init(name: String, value: Int, setting: String) {
        self.name = name
        self.value = value
        self.setting = setting
    }

    /// Whether ``value`` is an estimate: Avahi's cache (`avahi-cache …`), whose fill avahi-daemon does not tell.
    public var isEstimate: Bool { name.hasPrefix("avahi-cache ") }
}
