// The Bluetooth messages of the catalogue: the source's (bluetoothd, controllers, signals), resolving private
// addresses, and a client binding an IRK. The key itself is never a key of any line (it is a secret).
// docs/operations.md's log table lists them too.

extension LogMessage {
    /// No Bluetooth: no system bus, no bluetoothd on it, or no controller (or none of those `--bluetooth-adapter`
    /// names); logged once, the source then idles (bluetoothd or a controller that appears is picked up).
    public static let bluetoothUnavailable = LogMessage("bluetooth unavailable", .info, keys: ["reason"])
    /// bluetoothd returned to the bus (`reason=bluetoothd`) or the system bus was reconnected (`reason=bus`):
    /// everything is read again.
    public static let bluetoothReconnected = LogMessage("bluetooth reconnected", .info, keys: ["reason"])
    /// BlueZ refused LE discovery on an adapter (`StartDiscovery` failed, e.g. not authorized by the D-Bus
    /// policy); logged once per adapter, the source follows others' discovery there.
    public static let bluetoothDiscoveryRefused = LogMessage(
        "bluetooth discovery refused",
        .warning,
        keys: ["adapter", "error"]
    )
    /// A signal from bluetoothd could not be read (a shape the source does not know): logged once per connection,
    /// and BlueZ's objects are read again so nothing it said is lost.
    public static let bluetoothSignalUnreadable = LogMessage(
        "bluetooth signal unreadable",
        .warning,
        keys: ["signal", "error"]
    )
    /// The system's libcrypto could not run AES-128 to resolve a Bluetooth private address against the known IRKs:
    /// the address stays a device of its own; logged once per run.
    public static let bluetoothAddressUnresolved = LogMessage(
        "bluetooth address unresolved",
        .warning,
        keys: ["address", "error"]
    )
    /// SetDeviceIRK by an allowed client: `irk` is `set` or `removed`, never the key.
    public static let clientSetDeviceIRK = LogMessage(
        "client set device irk",
        .notice,
        keys: connectionKeys + ["id", "irk"]
    )
    /// `--bluetooth-irk-file` cannot be read, or a line of it is not `DEVICE-ID IRK`: peerscand does not start.
    public static let bluetoothIRKFileUnusable = LogMessage("bluetooth irk file unusable", .critical, keys: ["error"])
}
