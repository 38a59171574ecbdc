// The fixture the metrics tests share: a snapshot of a scanner with devices of every kind, and a statistics reply.

import DaemonSupport
import Foundation
import PeerScanModel
import PeerscanWeb

/// The id of fixture device `number`.
func fixtureID(_ number: Int) -> DeviceID {
    DeviceID(UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", number))!)
}

/// A device as the neighbour table and mDNS make one.
func fixtureDevice(
    _ number: Int,
    name: String? = nil,
    address: String? = nil,
    online: Bool = true,
    reason: PresenceReason? = nil,
    important: Bool = false,
    bluetooth: BluetoothFacts? = nil,
    services: Int = 0
) -> Device {
    Device(
        id: fixtureID(number),
        hostName: name.map { _ in "host\(number).local" },
        displayName: name,
        addresses: [address ?? "10.0.\(number / 256).\(number % 256)"],
        interfaces: ["lan0"],
        services: (0..<services).map {
            DeviceService(name: "service \($0)", type: "_http._tcp", domain: "local", port: 80, txt: [])
        },
        macAddresses: [String(format: "02:00:00:00:%02x:%02x", number / 256, number % 256)],
        vendor: number.isMultiple(of: 2) ? "Acme, Inc." : nil,
        online: online,
        presenceReason: reason,
        isImportant: important,
        bluetooth: bluetooth
    )
}

/// A snapshot as peerscand makes it: config (scanning, host), then — while scanning — Wi-Fi networks and devices.
func fixtureSnapshot(devices: [Device], networks: [WiFiNetwork] = [], scanning: Bool = true) -> ScanSnapshot {
    let host = HostStatus(hostName: "scanner.local", sourceState: .running, interfaces: ["lan0"])
    var sections: [(ScanSection, [ScanItem])] = [(.config, [.scanning(enabled: scanning), .host(host)])]
    if scanning {
        let sorted = devices.sorted { $0.sortKey < $1.sortKey }
        sections.append((.networks, networks.map(ScanItem.wifiNetwork) + sorted.map(ScanItem.device)))
    }
    return try! ScanSnapshot(sections)
}

/// A reply of GetStatistics with everything set.
let fixtureStatistics = PeerScanWire.StatisticsReply(
    probeRoundDurations: PeerScanWire.Histogram(bounds: [0.5, 1], counts: [2, 3], sum: 2.25, count: 4),
    addressConflicts: 5,
    evilTwinWarnings: 1,
    clients: PeerScanWire.ClientCounts(varlink: 3, mqtt: true),
    process: PeerScanWire.ProcessStatistics(
        residentBytes: 1 << 20,
        cpuSeconds: 1.5,
        openDescriptors: 12,
        maximumDescriptors: 1024,
        startTime: 1_764_000_000
    ),
    alerts: [
        PeerScanWire.AlertOutcomeCount(destination: "json://receiver.lan/hook", outcome: "sent", count: 7),
        PeerScanWire.AlertOutcomeCount(destination: "json://receiver.lan/hook", outcome: "dropped", count: 1),
    ]
)

/// peerscan-web's process figures in the fixture.
let fixtureProcess = ProcessFigures(
    residentBytes: 2 << 20,
    cpuSeconds: 0.25,
    openDescriptors: 9,
    maximumDescriptors: 1024,
    startTime: 1_764_000_100
)

/// The report of a scrape of `snapshot` at a fixed time.
func fixtureReport(_ snapshot: ScanSnapshot?, presence: PresenceLedger = PresenceLedger()) -> MetricsReport {
    MetricsReport(
        version: "1.2.3",
        daemon: MetricsReport.Daemon(snapshot: snapshot, presence: presence, statistics: fixtureStatistics),
        process: fixtureProcess,
        now: 1_764_001_000
    )
}

/// The sample lines of an exposition (no comments), as text.
func sampleLines(_ exposition: MetricsExposition) -> [String] {
    String(decoding: exposition.bytes, as: UTF8.self).split(separator: "\n").map(String.init)
        .filter { !$0.hasPrefix("#") }
}
