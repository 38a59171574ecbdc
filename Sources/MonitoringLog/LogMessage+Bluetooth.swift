// The Bluetooth device messages of the catalogue (issue 26) that the ble branch adds: a client binding an IRK. The
// key itself is never a key of any line (it is a secret). docs/operations.md's log table lists them too.

extension LogMessage {
    /// SetDeviceIRK by an allowed client: `irk` is `set` or `removed`, never the key.
    public static let clientSetDeviceIRK = LogMessage(
        "client set device irk",
        .notice,
        keys: connectionKeys + ["id", "irk"]
    )
    /// `--bluetooth-irk-file` cannot be read, or a line of it is not `DEVICE-ID IRK`: peerscand does not start.
    public static let bluetoothIRKFileUnusable = LogMessage("bluetooth irk file unusable", .critical, keys: ["error"])
}
