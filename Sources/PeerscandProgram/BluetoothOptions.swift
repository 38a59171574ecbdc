// The Bluetooth options: whether Bluetooth LE devices are listed, on which controllers, how long a silent one stays
// online, when an advertiser is kept and how many are listed, and the Identity Resolving Keys from a key file
// (systemd's LoadCredential=).

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

/// peerscand's Bluetooth options (`--no-bluetooth`, `--bluetooth-away`, `--bluetooth-admit-after`,
/// `--bluetooth-forget-after`, `--bluetooth-max-devices`, `--bluetooth-adapter`, `--bluetooth-irk-file`).
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
                IRK resolves (ephemeral), or not admitted (--bluetooth-admit-after), leaves the list then; others \
                stay offline until --bluetooth-forget-after or --forget-after.
                """,
            valueName: "seconds"
        )
    )
    var bluetoothAway: Double = 120

    @Option(
        help: ArgumentHelp(
            "Seconds a Bluetooth identity address must be heard, without a silence of --bluetooth-away, before it is "
                + "kept; 0: at once.",
            discussion: """
                Anything in radio range can advertise under any address: until then a device is listed while it \
                is heard, like an ephemeral one, and is not written to the registry or MQTT nor logged as new. \
                Paired or bonded devices, those an IRK resolves and those a person named, noted, gave an IRK or \
                merged are kept at once. The default, 20 minutes, is past the 15-minute rotation of Find My's \
                offline-finding addresses and far past a passer-by.
                """,
            valueName: "seconds"
        )
    )
    var bluetoothAdmitAfter: Double = Double(BluetoothSettings.defaultAdmitAfter.components.seconds)

    @Option(
        help: ArgumentHelp(
            "Seconds after its last advertisement that a kept Bluetooth device nobody touched is forgotten, if "
                + "earlier than --forget-after.",
            discussion: """
                A device a person named, noted, gave an IRK or merged, or one paired or bonded, stays until \
                --forget-after.
                """,
            valueName: "seconds"
        )
    )
    var bluetoothForgetAfter: Double = Double(BluetoothSettings.defaultForgetAfter.components.seconds)

    @Option(
        help: ArgumentHelp(
            "The most Bluetooth devices listed at once.",
            discussion: """
                Past it, devices not admitted go first (the one heard for the shortest time), then kept ones \
                nobody touched (the one absent longest), and `system limit reached limit=bluetooth-devices` is \
                logged once.
                """,
            valueName: "count"
        )
    )
    var bluetoothMaxDevices: Int = BluetoothSettings.defaultMaxDevices

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
        guard (0...(7 * 86400)).contains(bluetoothAdmitAfter) else {
            throw ValidationError("--bluetooth-admit-after must be between 0 and 604800 seconds.")
        }
        guard bluetoothForgetAfter >= 0, bluetoothForgetAfter <= 10 * 365 * 86400 else {
            throw ValidationError("--bluetooth-forget-after must be between 0 and 315360000 seconds.")
        }
        guard (1...100_000).contains(bluetoothMaxDevices) else {
            throw ValidationError("--bluetooth-max-devices must be between 1 and 100000.")
        }
        for adapter in bluetoothAdapter where adapter.isEmpty || adapter.contains("/") {
            throw ValidationError("--bluetooth-adapter \(adapter): expected a controller name like hci0.")
        }
    }

    /// How long after its last advertisement a Bluetooth device turns offline.
    var away: Duration { .seconds(bluetoothAway) }

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
        return BluetoothSettings(
            away: away,
            admitAfter: .seconds(bluetoothAdmitAfter),
            forgetAfter: .seconds(bluetoothForgetAfter),
            maxDevices: bluetoothMaxDevices,
            manufacturerOf: manufacturerOf,
            keys: keys
        )
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
