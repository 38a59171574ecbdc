import Foundation
import PeerScanClient
import PeerScanModel
import PeerscanWeb
import Testing

@Suite struct MetricsReportTests {
    private let phone = BluetoothFacts(
        address: "5a:00:00:00:00:01",
        addressType: .resolvablePrivate,
        name: nil,
        appearance: nil,
        manufacturer: nil,
        services: [],
        bars: 2,
        isEphemeral: true
    )

    private var snapshot: ScanSnapshot {
        fixtureSnapshot(
            devices: [
                fixtureDevice(1, name: "Living \"room\" TV", important: true, services: 2),
                fixtureDevice(2, online: false, reason: PresenceReason(.unanswered, ["arp"])),
                fixtureDevice(3, bluetooth: phone),
            ],
            networks: [
                WiFiNetwork(
                    id: fixtureID(90),
                    ssid: "home",
                    security: .wpa2Personal,
                    accessPoints: [],
                    bars: 3,
                    isConnected: false
                )
            ]
        )
    }

    @Test func theSnapshotsFiguresAreSeries() {
        let lines = Set(sampleLines(fixtureReport(snapshot).exposition(.prometheus)))
        let expected = [
            #"peerscan_build_info{version="1.2.3"} 1"#,
            "peerscan_daemon_up 1",
            "peerscan_scanning 1",
            #"peerscan_source_up{source="avahi"} 1"#,
            #"peerscan_devices{section="networks",state="online"} 2"#,
            #"peerscan_devices{section="networks",state="offline"} 1"#,
            #"peerscan_wifi_networks{security="wpa2-personal"} 1"#,
            #"peerscan_wifi_networks{security="open"} 0"#,
            #"peerscan_bluetooth_devices{resolved="true"} 0"#,
            #"peerscan_bluetooth_devices{resolved="false"} 1"#,
            "peerscan_mdns_services 2",
            #"peerscan_device_present{device="00000000-0000-4000-8000-000000000001"} 1"#,
            #"peerscan_device_present{device="00000000-0000-4000-8000-000000000002"} 0"#,
            #"peerscan_device_info{device="00000000-0000-4000-8000-000000000001",name="Living \"room\" TV","#
                + #"vendor="",source="mdns,neighbour",important="true"} 1"#,
            #"peerscan_device_info{device="00000000-0000-4000-8000-000000000002",name="02:00:00:00:00:02","#
                + #"vendor="Acme, Inc.",source="neighbour",important="false"} 1"#,
            #"peerscan_device_last_seen_timestamp_seconds{device="00000000-0000-4000-8000-000000000001"} 1764001000.0"#,
            #"peerscan_presence_transitions_total{direction="offline",reason="unanswered"} 0"#,
            #"peerscan_probe_round_duration_seconds_bucket{le="0.5"} 2"#,
            #"peerscan_probe_round_duration_seconds_bucket{le="1.0"} 3"#,
            #"peerscan_probe_round_duration_seconds_bucket{le="+Inf"} 4"#,
            "peerscan_probe_round_duration_seconds_sum 2.25",
            "peerscan_probe_round_duration_seconds_count 4",
            "peerscan_address_conflicts_total 5",
            "peerscan_evil_twin_warnings_total 1",
            #"peerscan_clients{api="varlink"} 3"#,
            #"peerscan_clients{api="mqtt"} 1"#,
            #"peerscan_alerts_total{destination="json://receiver.lan/hook",outcome="sent"} 7"#,
            #"peerscan_alerts_total{destination="json://receiver.lan/hook",outcome="dropped"} 1"#,
            "peerscan_daemon_resident_memory_bytes 1048576",
            "peerscan_daemon_cpu_seconds_total 1.5",
            "peerscan_daemon_open_fds 12",
            "process_resident_memory_bytes 2097152",
            "process_cpu_seconds_total 0.25",
            "process_start_time_seconds 1764000100.0",
        ]
        for line in expected { #expect(lines.contains(line), "\(line)") }
        // Offline, and never seen online by this process: no last-seen time.
        #expect(!lines.contains { $0.contains("last_seen") && $0.contains("000000000002") })
    }

    @Test func aDevicesLabelIsItsIdAsTheWireWritesIt() {
        var device = fixtureDevice(1)
        device.id = DeviceID(UUID(uuidString: "A1B2C3D4-E5F6-4789-8ABC-DEF012345678")!)
        let lines = sampleLines(fixtureReport(fixtureSnapshot(devices: [device])).exposition(.prometheus))
        #expect(lines.contains(#"peerscan_device_present{device="a1b2c3d4-e5f6-4789-8abc-def012345678"} 1"#))
        #expect(device.id.description == "a1b2c3d4-e5f6-4789-8abc-def012345678")
    }

    @Test func withoutTheDaemonOnlyUpBuildAndProcessAreShown() {
        let report = MetricsReport(version: "1.2.3", daemon: nil, process: fixtureProcess, now: 0)
        let names = Set(
            sampleLines(report.exposition(.openMetrics)).map { String($0.prefix { $0 != "{" && $0 != " " }) }
        )
        #expect(
            names == [
                "peerscan_build_info", "peerscan_daemon_up", "process_resident_memory_bytes",
                "process_cpu_seconds_total", "process_open_fds", "process_max_fds", "process_start_time_seconds",
            ]
        )
        #expect(sampleLines(report.exposition(.prometheus)).contains("peerscan_daemon_up 0"))
    }

    @Test func openMetricsEndsWithEOF() {
        let text = String(decoding: fixtureReport(snapshot).exposition(.openMetrics).bytes, as: UTF8.self)
        #expect(text.hasSuffix("\n# EOF\n"))
        #expect(text.contains("# TYPE peerscan_presence_transitions counter\n"))
        #expect(!text.contains("# TYPE peerscan_presence_transitions_total"))
    }

    @Test(arguments: [0, 1, 100, 2_000])
    func theSeriesAreAtMostThreePerDevicePlusAFixedNumber(devices count: Int) {
        // Every device online (three series each), with Bluetooth, Wi-Fi of every security, MQTT and probing.
        let devices = (0..<count).map { fixtureDevice($0, name: "d\($0)", services: 1) }
        let networks = WiFiSecurity.allCases.enumerated().map { index, security in
            WiFiNetwork(
                id: fixtureID(100_000 + index),
                ssid: "n\(index)",
                security: security,
                accessPoints: [],
                bars: 1,
                isConnected: false
            )
        }
        let series = sampleLines(
            fixtureReport(fixtureSnapshot(devices: devices, networks: networks)).exposition(.openMetrics)
        )
        let destinations = Set(fixtureStatistics.alerts.map(\.destination)).count
        #expect(series.count <= 3 * count + MetricsReport.fixedSeriesBound + 3 * destinations)
        #expect(series.filter { $0.hasPrefix("peerscan_device_") }.count == 3 * count)
    }

    @Test func aRenamedAndRenumberedDeviceChangesOnlyItsInfoSeries() {
        let before = fixtureSnapshot(devices: [fixtureDevice(1, name: "Printer"), fixtureDevice(2, name: "TV")])
        let after = fixtureSnapshot(devices: [
            fixtureDevice(1, name: "Office printer", address: "10.9.9.9"), fixtureDevice(2, name: "TV"),
        ])
        func series(_ snapshot: ScanSnapshot) -> Set<String> {
            Set(sampleLines(fixtureReport(snapshot).exposition(.prometheus)).map { String($0.prefix { $0 != " " }) })
        }
        let changed = series(before).symmetricDifference(series(after))
        #expect(changed.count == 2)
        #expect(changed.allSatisfy { $0.hasPrefix("peerscan_device_info{device=\"\(fixtureID(1))\"") })
    }
}
