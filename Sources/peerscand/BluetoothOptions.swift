// The Bluetooth options: whether Bluetooth LE devices are listed, on which controllers, how long a silent one stays
// online, and the Identity Resolving Keys from a key file (systemd's LoadCredential=).

import ArgumentParser
import Foundation
import Logging
import MonitoringLog
import PeerScanCore
import PeerScanModel

/// What the Bluetooth source needs from the command line, for the composition root to hand to
/// `BluetoothDiscoverySource(adapters:clock:logger:)`.
struct BluetoothSourceSettings: Equatable {
    /// The controllers to scan with (`--bluetooth-adapter`), e.g. `hci0`; empty: every one.
    var adapters: [String]
}

/// peerscand's Bluetooth options (`--no-bluetooth`, `--bluetooth-away`, `--bluetooth-adapter`,
/// `--bluetooth-irk-file`).
struct BluetoothOptions: ParsableArguments {
    @Flag(
        inversion: .prefixedNo,
        help: ArgumentHelp(
            "List the Bluetooth LE devices advertising nearby (BlueZ, over D-Bus).",
            discussion: """
                Every controller, or those of --bluetooth-adapter (--interface does not restrict Bluetooth). \
                --no-bluetooth leaves Bluetooth out.
                """
        )
    )
    var bluetooth = true

    @Option(
        help: ArgumentHelp(
            "Seconds without an advertisement after which a Bluetooth device is offline; at least 10.",
            discussion: """
                For a device not paired with this host it counts from bluetoothd dropping the device \
                (TemporaryTimeout, 30 s after its last advertisement). A device known only by a private address no \
                IRK resolves (ephemeral) leaves the list then; others stay offline until --forget-after.
                """,
            valueName: "seconds"
        )
    )
    var bluetoothAway: Double = 120

    @Option(
        help: ArgumentHelp(
            "A Bluetooth controller to scan with, e.g. hci0 (repeatable); default: every one.",
            valueName: "name"
        )
    )
    var bluetoothAdapter: [String] = []

    @Option(
        help: ArgumentHelp(
            "A file of Identity Resolving Keys: lines `DEVICE-ID IRK` (32 hex digits or base64, as for peerscanctl "
                + "set --irk); # starts a comment.",
            discussion: """
                For systemd's LoadCredential= (e.g. --bluetooth-irk-file ${CREDENTIALS_DIRECTORY}/irks). Every \
                resolvable private address a key resolves is that device. A key here takes precedence over one \
                set with `peerscanctl set DEVICE --irk`, and is not written to the registry.
                """,
            valueName: "path"
        )
    )
    var bluetoothIrkFile: String?

    func validate() throws {
        guard (10...86400).contains(bluetoothAway) else {
            throw ValidationError("--bluetooth-away must be between 10 and 86400 seconds.")
        }
        for adapter in bluetoothAdapter where adapter.isEmpty || adapter.contains("/") {
            throw ValidationError("--bluetooth-adapter \(adapter): expected a controller name like hci0.")
        }
    }

    /// How long after its last advertisement a Bluetooth device turns offline.
    var away: Duration { .milliseconds(Int64(bluetoothAway * 1000)) }

    /// The Bluetooth source's settings, or `nil` with `--no-bluetooth`.
    func sourceSettings() -> BluetoothSourceSettings? {
        bluetooth ? BluetoothSourceSettings(adapters: bluetoothAdapter) : nil
    }

    /// The device table's Bluetooth settings: the registry's keys, overridden by the key file's.
    ///
    /// - Throws: ``IRKFileError`` if the key file cannot be read or a line is not `DEVICE-ID IRK`.
    func makeSettings(
        registryKeys: [DeviceID: IdentityResolvingKey],
        manufacturerOf: @escaping @Sendable (UInt16) -> String? = { _ in nil }
    ) throws(IRKFileError) -> BluetoothSettings {
        var keys = registryKeys
        if let path = bluetoothIrkFile {
            let text: String
            do {
                text = try String(contentsOfFile: path, encoding: .utf8)
            } catch {
                throw IRKFileError(path: path, line: nil, reason: "\(error.localizedDescription)")
            }
            keys.merge(try IRKFileError.parseKeyFile(text, path: path)) { _, fromFile in fromFile }
        }
        return BluetoothSettings(away: away, manufacturerOf: manufacturerOf, keys: keys)
    }

    /// ``makeSettings(registryKeys:manufacturerOf:)``, or, when the key file cannot be used, its log line
    /// (`bluetooth irk file unusable`) and a failed exit.
    func makeSettings(
        registryKeys: [DeviceID: IdentityResolvingKey],
        manufacturerOf: @escaping @Sendable (UInt16) -> String? = { _ in nil },
        logger: Logger
    ) throws(ExitCode) -> BluetoothSettings {
        do {
            return try makeSettings(registryKeys: registryKeys, manufacturerOf: manufacturerOf)
        } catch {
            logger.log(.bluetoothIRKFileUnusable, ["error": "\(error)"])
            throw ExitCode.failure
        }
    }
}
