// Shared by the test files: builders of devices, services and snapshots shaped as peerscand makes them.

import Diffable
import Foundation
import PeerScanClient
import PeerScanCore
import PeerScanModel

/// A service of a device.
func makeService(
    _ type: String,
    name: String,
    port: UInt16 = 80,
    domain: String = "local",
    txt: [(String, String?)] = []
) -> DeviceService {
    DeviceService(
        name: name,
        type: type,
        domain: domain,
        port: port,
        txt: txt.map { TXTEntry(key: $0.0, value: $0.1) }.sorted { $0.key < $1.key }
    )
}

/// A device on `hostName`, its services sorted as peerscand sorts them.
func makeDevice(
    _ hostName: String,
    name: String,
    addresses: [String] = [],
    interfaces: [String] = ["lan0"],
    services: [DeviceService]
) -> Device {
    Device(
        id: DeviceID.make(hostName: hostName),
        hostName: hostName,
        displayName: name,
        addresses: addresses,
        interfaces: interfaces,
        services: services.sorted { $0.key < $1.key }
    )
}

/// The host status of a running scanner.
let runningHost = HostStatus(hostName: "scanner.local", sourceState: .running, interfaces: ["lan0"])

/// A snapshot as peerscand makes it: config (scanning, host), then — while scanning — the devices sorted by name.
func makeSnapshot(scanning: Bool = true, host: HostStatus = runningHost, devices: [Device] = []) -> ScanSnapshot {
    var sections: [(ScanSection, [ScanItem])] = [(.config, [.scanning(enabled: scanning), .host(host)])]
    if scanning {
        let sorted = devices.sorted { $0.sortKey < $1.sortKey }
        sections.append((.networks, sorted.map(ScanItem.device)))
    }
    return try! ScanSnapshot(sections)
}

/// The lines describing the difference between two snapshots, as printed without colour.
func describe(from old: ScanSnapshot, to new: ScanSnapshot) -> [String] {
    ChangeDescription.lines(from: old, to: new).map(\.description)
}

/// The living-room TV of the examples.
func makeTV(
    addresses: [String] = ["10.0.0.7"],
    services: [DeviceService] = [
        makeService("_airplay._tcp", name: "Living Room TV", port: 7000, txt: [("model", "X1")]),
        makeService("_raop._tcp", name: "Living Room TV", port: 7000),
    ]
) -> Device {
    makeDevice("tv.local", name: "Living Room TV", addresses: addresses, services: services)
}
