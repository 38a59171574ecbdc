import DaemonSupport
import PeerScanModel

/// Everything one scrape of `GET /metrics` shows, and its exposition: a pure value, so the series are tested from a
/// fixture snapshot without I/O (docs/metrics.md describes every series).
///
/// Devices are keyed by their id (a UUID) only: their name, vendor, sources and importance are the labels of one
/// info series each (`peerscan_device_info`, joined with `group_left`), so a device renamed or renumbered changes
/// that series only. Three series per device, three per alert destination and a fixed number besides
/// (``fixedSeriesBound``).
public struct MetricsReport: Sendable {
    /// What peerscand said, when it answered.
    public struct Daemon: Sendable {
        /// The follower's snapshot; `nil` before its first one.
        public var snapshot: ScanSnapshot?
        /// What the follower saw of presence.
        public var presence: PresenceLedger
        /// GetStatistics's reply for this scrape.
        public var statistics: PeerScanWire.StatisticsReply

        /// Creates the daemon's part.
        public init(snapshot: ScanSnapshot?, presence: PresenceLedger, statistics: PeerScanWire.StatisticsReply) {
            self.snapshot = snapshot
            self.presence = presence
            self.statistics = statistics
        }
    }

    /// The most series besides the devices' three each and the alert destinations' three each.
    public static let fixedSeriesBound = 60

    /// peerscan-web's version.
    public var version: String
    /// peerscand's part; `nil` when it does not answer (then only `peerscan_daemon_up`, `peerscan_build_info` and
    /// `process_*` are shown).
    public var daemon: Daemon?
    /// peerscan-web's own process; `nil` if `/proc` cannot be read.
    public var process: ProcessFigures?
    /// The scrape's time, in seconds since the Unix epoch (an online device's last-seen time).
    public var now: Double

    /// Creates a report.
    public init(version: String, daemon: Daemon?, process: ProcessFigures?, now: Double) {
        self.version = version
        self.daemon = daemon
        self.process = process
        self.now = now
    }

    /// The exposition in `format`.
    /// - Complexity: O(devices + items of the snapshot): each item is read once.
    public func exposition(_ format: MetricsExposition.Format) -> MetricsExposition {
        let scanner = daemon?.snapshot.map { ScannerFigures($0, presence: daemon?.presence ?? PresenceLedger()) }
        var out = MetricsExposition(format: format, capacity: 4096 + (scanner?.devices.count ?? 0) * 340)
        out.family("peerscan_build_info", .gauge, help: "peerscan-web's version; always 1.")
        out.sample("peerscan_build_info", ["version": version], "1")
        out.family("peerscan_daemon_up", .gauge, help: "Whether peerscand answered this scrape's GetStatistics.")
        out.sample("peerscan_daemon_up", [:], daemon == nil ? "0" : "1")
        if let process { writeProcess(process, prefix: "process", owner: "peerscan-web", into: &out) }
        if let daemon {
            if let scanner {
                writeScanner(scanner, into: &out)
                writeDevices(scanner.devices, into: &out)
            }
            writeStatistics(daemon.statistics, presence: daemon.presence, into: &out)
        }
        out.finish()
        return out
    }

    private func writeProcess(_ figures: ProcessFigures, prefix: String, owner: String, into out: inout Exposition) {
        out.family("\(prefix)_resident_memory_bytes", .gauge, help: "\(owner)'s resident memory, in bytes.")
        out.sample("\(prefix)_resident_memory_bytes", [:], Exposition.value(figures.residentBytes))
        out.family("\(prefix)_cpu_seconds", .counter, help: "\(owner)'s user and system CPU time, in seconds.")
        out.sample("\(prefix)_cpu_seconds_total", [:], Exposition.value(figures.cpuSeconds))
        out.family("\(prefix)_open_fds", .gauge, help: "\(owner)'s open file descriptors.")
        out.sample("\(prefix)_open_fds", [:], Exposition.value(figures.openDescriptors))
        out.family("\(prefix)_max_fds", .gauge, help: "\(owner)'s open-file limit.")
        out.sample("\(prefix)_max_fds", [:], Exposition.value(figures.maximumDescriptors))
        out.family("\(prefix)_start_time_seconds", .gauge, help: "When \(owner) started, since the Unix epoch.")
        out.sample("\(prefix)_start_time_seconds", [:], Exposition.value(figures.startTime))
    }

    /// The scanner's state from the snapshot: scanning, sources, devices by state, Wi-Fi, Bluetooth, mDNS.
    private func writeScanner(_ scanner: ScannerFigures, into out: inout Exposition) {
        out.family("peerscan_scanning", .gauge, help: "Whether scanning is on.")
        out.sample("peerscan_scanning", [:], scanner.isScanning ? "1" : "0")
        out.family("peerscan_source_up", .gauge, help: "Whether a discovery source works, where the snapshot says.")
        out.sample("peerscan_source_up", ["source": "avahi"], scanner.isAvahiUp ? "1" : "0")
        if let wifiUp = scanner.isWiFiUp { out.sample("peerscan_source_up", ["source": "wifi"], wifiUp ? "1" : "0") }
        out.family("peerscan_devices", .gauge, help: "Devices in the snapshot, by section and state.")
        if scanner.hasNetworks {
            let online = Exposition.value(scanner.online)
            out.sample("peerscan_devices", ["section": "networks", "state": "online"], online)
            let offline = Exposition.value(scanner.devices.count - scanner.online)
            out.sample("peerscan_devices", ["section": "networks", "state": "offline"], offline)
        }
        out.family("peerscan_wifi_networks", .gauge, help: "Wi-Fi networks in range, by security.")
        for security in WiFiSecurity.allCases {
            let count = Exposition.value(scanner.networksBySecurity[security] ?? 0)
            out.sample("peerscan_wifi_networks", ["security": security.rawValue], count)
        }
        out.family(
            "peerscan_bluetooth_devices",
            .gauge,
            help: "Bluetooth LE devices; resolved: a stable identity (not ephemeral)."
        )
        let resolved = Exposition.value(scanner.bluetooth - scanner.ephemeral)
        out.sample("peerscan_bluetooth_devices", ["resolved": "true"], resolved)
        out.sample("peerscan_bluetooth_devices", ["resolved": "false"], Exposition.value(scanner.ephemeral))
        out.family("peerscan_mdns_services", .gauge, help: "DNS-SD services of the devices.")
        out.sample("peerscan_mdns_services", [:], Exposition.value(scanner.services))
    }

    /// Three series per device, keyed by its id only.
    private func writeDevices(_ devices: [DeviceRow], into out: inout Exposition) {
        out.family("peerscan_device_present", .gauge, help: "Whether the device answers (1) or not (0).")
        for device in devices {
            out.sample("peerscan_device_present", label: "device", device.id, device.online ? "1" : "0")
        }
        out.family("peerscan_device_info", .gauge, help: "A device's name, vendor, sources and importance; always 1.")
        for device in devices {
            out.sample(
                "peerscan_device_info",
                [
                    "device": device.id, "name": device.name, "vendor": device.vendor, "source": device.sources,
                    "important": device.important ? "true" : "false",
                ],
                "1"
            )
        }
        out.family(
            "peerscan_device_last_seen_timestamp_seconds",
            .gauge,
            help: "When peerscan-web last saw the device online, since the Unix epoch."
        )
        for device in devices {
            guard let seen = device.online ? now : device.lastOnline else { continue }
            out.sample(
                "peerscan_device_last_seen_timestamp_seconds",
                label: "device",
                device.id,
                Exposition.value(seen)
            )
        }
    }

    /// What only peerscand knows, and the transitions the follower counted.
    private func writeStatistics(
        _ statistics: PeerScanWire.StatisticsReply,
        presence: PresenceLedger,
        into out: inout Exposition
    ) {
        out.family("peerscan_presence_transitions", .counter, help: "Devices' presence changes peerscan-web saw.")
        for direction in PresenceLedger.Direction.allCases {
            for reason in PresenceLedger.Reason.allCases {
                out.sample(
                    "peerscan_presence_transitions_total",
                    ["direction": direction.rawValue, "reason": reason.rawValue],
                    Exposition.value(presence.count(direction, reason))
                )
            }
        }
        if let rounds = statistics.probeRoundDurations {
            let name = "peerscan_probe_round_duration_seconds"
            out.family(name, .histogram, help: "How long peerscand's probe rounds took, in seconds.")
            for (bound, count) in zip(rounds.bounds, rounds.counts) {
                out.sample(name + "_bucket", ["le": Exposition.bound(bound)], Exposition.value(count))
            }
            out.sample(name + "_bucket", ["le": "+Inf"], Exposition.value(rounds.count))
            out.sample(name + "_sum", [:], Exposition.value(rounds.sum))
            out.sample(name + "_count", [:], Exposition.value(rounds.count))
        }
        out.family("peerscan_address_conflicts", .counter, help: "Address conflicts peerscand logged since it started.")
        out.sample("peerscan_address_conflicts_total", [:], Exposition.value(statistics.addressConflicts))
        out.family(
            "peerscan_evil_twin_warnings",
            .counter,
            help: "Possible evil twins peerscand logged since it started."
        )
        out.sample("peerscan_evil_twin_warnings_total", [:], Exposition.value(statistics.evilTwinWarnings))
        out.family("peerscan_clients", .gauge, help: "peerscand's clients connected now, by API.")
        out.sample("peerscan_clients", ["api": "varlink"], Exposition.value(statistics.clients.varlink))
        if let mqtt = statistics.clients.mqtt { out.sample("peerscan_clients", ["api": "mqtt"], mqtt ? "1" : "0") }
        out.family("peerscan_alerts", .counter, help: "Alerts by destination and outcome since peerscand started.")
        for alerts in statistics.alerts {
            out.sample(
                "peerscan_alerts_total",
                ["destination": alerts.destination, "outcome": alerts.outcome],
                Exposition.value(alerts.count)
            )
        }
        if let process = statistics.process {
            let figures = ProcessFigures(
                residentBytes: process.residentBytes,
                cpuSeconds: process.cpuSeconds,
                openDescriptors: process.openDescriptors,
                maximumDescriptors: process.maximumDescriptors,
                startTime: process.startTime
            )
            writeProcess(figures, prefix: "peerscan_daemon", owner: "peerscand", into: &out)
        }
    }

    /// The sources a device is known from: `mdns` (a host name), `neighbour` (a MAC address), `bluetooth`.
    static func sources(of device: Device) -> String {
        switch (device.hostName != nil, !device.macAddresses.isEmpty, device.bluetooth != nil) {
        case (false, false, false): ""
        case (true, false, false): "mdns"
        case (false, true, false): "neighbour"
        case (false, false, true): "bluetooth"
        case (true, true, false): "mdns,neighbour"
        case (true, false, true): "mdns,bluetooth"
        case (false, true, true): "neighbour,bluetooth"
        case (true, true, true): "mdns,neighbour,bluetooth"
        }
    }
}

/// What the series say of one device, read once from its item.
private struct DeviceRow {
    var id: String
    var online: Bool
    var name: String
    var vendor: String
    var sources: String
    var important: Bool
    var lastOnline: Double?
}

/// The snapshot's figures, in one pass over its items (a device's item is large: it is read once, not copied).
private struct ScannerFigures {
    var isScanning = false
    var isAvahiUp = false
    var isWiFiUp: Bool?
    var hasNetworks: Bool
    var networksBySecurity: [WiFiSecurity: Int] = [:]
    var devices: [DeviceRow] = []
    var online = 0
    var bluetooth = 0
    var ephemeral = 0
    var services = 0

    init(_ snapshot: ScanSnapshot, presence: PresenceLedger) {
        hasNetworks = snapshot.contains(section: .networks)
        devices.reserveCapacity(snapshot.numberOfItems)
        for section in snapshot.sectionIdentifiers {
            for item in snapshot.items(inSection: section) ?? [] {
                switch item {
                case .scanning(let enabled): isScanning = enabled
                case .host(let host): isAvahiUp = host.sourceState == .running
                case .wifiInterface(let interface): isWiFiUp = (isWiFiUp ?? false) || interface.isUp
                case .wifiNetwork(let network): networksBySecurity[network.security, default: 0] += 1
                case .device(let device): add(device, presence: presence)
                }
            }
        }
    }

    private mutating func add(_ device: Device, presence: PresenceLedger) {
        if device.online { online += 1 }
        if let facts = device.bluetooth {
            bluetooth += 1
            if facts.isEphemeral { ephemeral += 1 }
        }
        services += device.services.count
        devices.append(
            DeviceRow(
                id: device.id.lowercasedText,
                online: device.online,
                name: device.label,
                vendor: device.vendor ?? "",
                sources: MetricsReport.sources(of: device),
                important: device.isImportant,
                lastOnline: device.online ? nil : presence.lastOnline[device.id]
            )
        )
    }
}

extension DeviceID {
    /// The id as text (as ``description``), written without Foundation's formatter: 10,000 a scrape.
    fileprivate var lowercasedText: String {
        let digits = Array("0123456789abcdef".utf8)
        return withUnsafeBytes(of: uuid.uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { text in
                var at = 0
                for (index, byte) in bytes.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        text[at] = UInt8(ascii: "-")
                        at += 1
                    }
                    text[at] = digits[Int(byte >> 4)]
                    text[at + 1] = digits[Int(byte & 0x0f)]
                    at += 2
                }
                return at
            }
        }
    }
}

private typealias Exposition = MetricsExposition
