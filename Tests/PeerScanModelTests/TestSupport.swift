// Shared by the test files: wire values, fully populated samples, and random snapshots (with awkward strings: quotes,
// backslashes, control characters, slashes, non-ASCII) and the changesets between them, from a seed.

import Diffable
import Foundation
import PeerScanModel
import SeededRandom

enum WireSamples {
    /// A device with every field set, a bare TXT key among them.
    static func device() -> Device {
        Device(
            id: DeviceID(UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))),
            hostName: "tv.local",
            displayName: "Living \"Room\" TV / Ü",
            addresses: ["10.0.0.7", "fe80::1%eth0"],
            interfaces: ["eth0"],
            services: [
                DeviceService(
                    name: "Living Room TV",
                    type: "_airplay._tcp",
                    domain: "local",
                    port: 7000,
                    txt: [TXTEntry(key: "flag", value: nil), TXTEntry(key: "model", value: "X1")]
                )
            ],
            macAddresses: ["00:00:0c:00:00:01"],
            vendor: "Cisco Systems, Inc",
            online: false,
            presenceReason: PresenceReason(.unanswered, ["arp", "mdns"]),
            assignedName: "Living \"Room\" TV / Ü",
            isImportant: true,
            bluetooth: BluetoothFacts(
                address: "00:1a:7d:da:71:13",
                addressType: .public,
                name: "TV \"BT\"",
                appearance: 0x0080,
                manufacturer: "Apple, Inc.",
                services: ["0000180f-0000-1000-8000-00805f9b34fb"],
                bars: 3,
                isEphemeral: false
            )
        )
    }

    /// A snapshot with every field of every kind of item set: scanning, a failed host (with a reason), ``device()``.
    static func snapshot() throws -> ScanSnapshot {
        try ScanSnapshot([
            (
                .config,
                [
                    .scanning(enabled: true),
                    .host(
                        HostStatus(
                            hostName: "scanner.local",
                            sourceState: .failure(reason: "no D-Bus"),
                            limits: [
                                SystemLimit(
                                    name: "neighbour-table ipv4",
                                    value: 1024,
                                    setting: "net.ipv4.neigh.default.gc_thresh3=1024"
                                )
                            ]
                        )
                    ),
                    .wifiInterface(wifiInterface()),
                ]
            ),
            (.networks, [.wifiNetwork(wifiNetwork()), .device(device())]),
        ])
    }

    /// A connected wireless interface, every field set.
    static func wifiInterface() -> WirelessInterfaceStatus {
        WirelessInterfaceStatus(
            id: DeviceID(UUID(uuid: (2, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))),
            name: "wlan0",
            isUp: true,
            connection: WiFiConnectionInfo(
                network: wifiNetwork().id,
                ssid: "home \"net\" Ü",
                bssid: "02:00:00:00:01:00",
                band: .band2_4GHz
            )
        )
    }

    /// A connected Wi-Fi network with two access points, every field set.
    static func wifiNetwork() -> WiFiNetwork {
        WiFiNetwork(
            id: DeviceID(UUID(uuid: (3, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))),
            ssid: "home \"net\" Ü",
            security: .wpa2Personal,
            accessPoints: [
                WiFiAccessPointInfo(bssid: "02:00:00:00:01:00", frequency: 2437),
                WiFiAccessPointInfo(bssid: "02:00:00:00:02:00", frequency: 5180),
            ],
            bars: 3,
            isConnected: true
        )
    }

    /// A changeset with one change of every kind (not one that applies to anything: it is for its encoding).
    static func changesetOfEveryKind() -> ScanChangeset {
        let item = ScanItem.device(device())
        var changes = ScanChangeset()
        changes.sectionDeletes = [.init(id: .networks, from: 1)]
        changes.sectionInserts = [.init(id: .networks, at: 1)]
        changes.sectionMoves = [.init(id: .networks, from: 0, to: 1)]
        changes.sectionReloads = [.init(id: .config, at: 0)]
        changes.itemDeletes = [.init(id: item.id, from: ItemIndexPath(section: 1, item: 0))]
        changes.itemInserts = [.init(item: item, at: ItemIndexPath(section: 1, item: 0))]
        changes.itemMoves = [
            .init(id: item.id, from: ItemIndexPath(section: 1, item: 0), to: ItemIndexPath(section: 1, item: 2))
        ]
        changes.itemUpdates = [.init(item: .scanning(enabled: false), at: ItemIndexPath(section: 0, item: 0))]
        return changes
    }

    /// A device with every field of its history set.
    static func knownDevice() -> PeerScanWire.KnownDevice {
        let sighting = PeerScanWire.Sighting(value: "tv.local", firstSeen: "2026-09-21T14:13:20Z", lastSeen: "now")
        return PeerScanWire.KnownDevice(
            id: DeviceID.host,
            name: "TV",
            present: true,
            online: true,
            firstSeen: "2026-09-21T14:13:20Z",
            lastSeen: "2026-09-21T14:14:00Z",
            vendor: "Cisco Systems, Inc",
            hostNames: [sighting],
            macAddresses: [sighting],
            addresses: [sighting],
            label: "TV \"big\" / Ü",
            note: "bought 2026\nwarranty",
            important: true
        )
    }
}

/// The recipe of a random pair of snapshots as the daemon makes them — a config section (scanning switch, host) and,
/// while scanning, devices sorted by their sort key — the new one made from the old by removals, additions, changes
/// and the scanning switch. The same recipe makes the same pair.
struct RandomScan: Sendable, CustomStringConvertible {
    var seed: UInt64
    var deviceCount: Int

    var description: String { "RandomScan(seed: \(seed), deviceCount: \(deviceCount))" }

    func make() throws -> (old: ScanSnapshot, new: ScanSnapshot, epoch: String) {
        var random = SeededGenerator(seed: seed)
        let devices = (0..<deviceCount).map { _ in Self.device(using: &random) }
        let old = try Self.snapshot(devices, scanning: deviceCount % 5 != 0, using: &random)
        var kept = devices.filter { _ in Int.random(in: 0..<4, using: &random) != 0 }
        for index in kept.indices where Bool.random(using: &random) {
            kept[index] = Self.device(id: kept[index].id, using: &random)
        }
        kept += (0..<Int.random(in: 0...5, using: &random)).map { _ in Self.device(using: &random) }
        let new = try Self.snapshot(kept, scanning: Int.random(in: 0..<6, using: &random) != 0, using: &random)
        return (old, new, Self.awkwardString(using: &random))
    }

    private static func snapshot(
        _ devices: [Device],
        scanning: Bool,
        using random: inout SeededGenerator
    ) throws -> ScanSnapshot {
        let states: [SourceState] = [
            .running, .connecting, .registering, .collision,
            .failure(reason: awkwardString(using: &random)), .unavailable(reason: awkwardString(using: &random)),
        ]
        let host = HostStatus(
            hostName: optional(awkwardString(using: &random), using: &random),
            sourceState: states.randomElement(using: &random)!,
            interfaces: (0..<Int.random(in: 0...2, using: &random)).map { _ in awkwardString(using: &random) },
            limits: (0..<Int.random(in: 0...2, using: &random)).map { _ in
                SystemLimit(
                    name: awkwardString(using: &random),
                    value: Int.random(in: 0...100_000, using: &random),
                    setting: awkwardString(using: &random)
                )
            }
        )
        var sections: [(ScanSection, [ScanItem])] = [(.config, [.scanning(enabled: scanning), .host(host)])]
        if scanning { sections.append((.networks, devices.sorted { $0.sortKey < $1.sortKey }.map(ScanItem.device))) }
        return try ScanSnapshot(sections)
    }

    private static func device(id: DeviceID? = nil, using random: inout SeededGenerator) -> Device {
        func strings(_ count: ClosedRange<Int>) -> [String] {
            (0..<Int.random(in: count, using: &random)).map { _ in awkwardString(using: &random) }
        }
        let services = (0..<Int.random(in: 0...2, using: &random)).map { _ in
            // TXT keys unique and sorted, as a decoder returns them.
            let keys = Set(strings(0...3)).sorted(by: TXTEntry.keyPrecedes)
            return DeviceService(
                name: awkwardString(using: &random),
                type: "_\(awkwardString(using: &random))._tcp",
                domain: "local",
                port: UInt16.random(in: 0...UInt16.max, using: &random),
                txt: keys.map { TXTEntry(key: $0, value: optional(awkwardString(using: &random), using: &random)) }
            )
        }
        return Device(
            id: id ?? DeviceID(UUID(uuid: randomUUIDBytes(using: &random))),
            hostName: optional(awkwardString(using: &random), using: &random),
            displayName: optional(awkwardString(using: &random), using: &random),
            addresses: strings(0...3),
            interfaces: strings(0...2),
            services: services,
            macAddresses: strings(0...2),
            vendor: optional(awkwardString(using: &random), using: &random),
            online: Bool.random(using: &random),
            presenceReason: [
                nil, PresenceReason(.answered, ["arp", "ndp"]), PresenceReason(.unanswered, ["mdns"]),
                PresenceReason(.withdrawn), PresenceReason(.answered, ["ble"]),
            ].randomElement(using: &random)!,
            bluetooth: optional(
                BluetoothFacts(
                    address: awkwardString(using: &random),
                    addressType: BluetoothAddressType.allCases.randomElement(using: &random)!,
                    name: optional(awkwardString(using: &random), using: &random),
                    appearance: optional(Int.random(in: 0...0xFFFF, using: &random), using: &random),
                    manufacturer: optional(awkwardString(using: &random), using: &random),
                    services: strings(0...2),
                    bars: Int.random(in: 0...4, using: &random),
                    isEphemeral: Bool.random(using: &random)
                ),
                using: &random
            )
        )
    }

    /// Text that JSON must escape or must not: quotes, backslashes, every control character, slashes, `</`, line
    /// and paragraph separators, accents (composed and combining), CJK and emoji.
    private static let awkwardPieces: [String] =
        ["\"", "\\", "/", "</", "\u{2028}", "\u{2029}", "é", "e\u{301}", "Ü", "漢", "🙂", "a", "Z", "0", " ", "%"]
        + (0..<0x20).map { String(UnicodeScalar(UInt8($0))) } + ["\u{7F}"]

    static func awkwardString(using random: inout SeededGenerator) -> String {
        (0..<Int.random(in: 0...8, using: &random)).map { _ in awkwardPieces.randomElement(using: &random)! }
            .joined()
    }

    private static func optional<Value>(_ value: Value, using random: inout SeededGenerator) -> Value? {
        Int.random(in: 0..<4, using: &random) == 0 ? nil : value
    }

    private static func randomUUIDBytes(using random: inout SeededGenerator) -> uuid_t {
        let high = random.next()
        let low = random.next()
        func byte(_ word: UInt64, _ index: Int) -> UInt8 { UInt8(truncatingIfNeeded: word >> (8 * index)) }
        return (
            byte(high, 0), byte(high, 1), byte(high, 2), byte(high, 3), byte(high, 4), byte(high, 5), byte(high, 6),
            byte(high, 7), byte(low, 0), byte(low, 1), byte(low, 2), byte(low, 3), byte(low, 4), byte(low, 5),
            byte(low, 6), byte(low, 7)
        )
    }
}
