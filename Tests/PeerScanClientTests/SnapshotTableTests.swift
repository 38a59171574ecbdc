import Foundation
import PeerScanCore
import PeerScanModel
import Testing

@testable import PeerScanClient

@Suite("The list table")
struct SnapshotTableTests {
    @Test("configuration first, then one aligned row per device, last column unpadded")
    func table() {
        let alpha = makeDevice(
            "alpha.local",
            name: "Alpha",
            addresses: ["10.231.0.10", "fd70:7363:616e::10"],
            services: [makeService("_http._tcp", name: "Alpha"), makeService("_ssh._tcp", name: "Alpha", port: 22)]
        )
        let snapshot = makeSnapshot(devices: [alpha, makeTV()])
        #expect(
            SnapshotTable.render(snapshot) == [
                "scanning    on",
                "host        scanner.local",
                "avahi       running",
                "interfaces  lan0",
                "",
                "NAME            STATE   HOST         MAC  VENDOR  ADDRESSES                       SERVICES",
                "Alpha           online  alpha.local  -    -       10.231.0.10,fd70:7363:616e::10  _http._tcp,_ssh._tcp",
                "Living Room TV  online  tv.local     -    -       10.0.0.7                        _airplay._tcp,_raop._tcp",
            ]
        )
    }

    @Test("Avahi's reason, an unknown host name, no interfaces yet, no devices yet")
    func degraded() {
        let host = HostStatus(hostName: nil, sourceState: .failure(reason: "Bad state"), interfaces: [])
        #expect(
            SnapshotTable.render(makeSnapshot(host: host)) == [
                "scanning    on",
                "host        (not known yet)",
                "avahi       failure (Bad state)",
                "interfaces  -",
                "",
                "No devices found yet.",
            ]
        )
    }

    @Test("the system's limits reached: a limits line, an estimate marked ~")
    func limitsReached() {
        let host = HostStatus(
            hostName: "scanner.local",
            sourceState: .running,
            interfaces: ["lan0"],
            limits: [
                SystemLimit(name: "avahi-cache lan0 ipv4", value: 4100, setting: "cache-entries-max=4096"),
                SystemLimit(
                    name: "neighbour-table ipv4",
                    value: 1024,
                    setting: "net.ipv4.neigh.default.gc_thresh3=1024"
                ),
            ]
        )
        #expect(
            Array(SnapshotTable.render(makeSnapshot(host: host)).prefix(5)) == [
                "scanning    on",
                "host        scanner.local",
                "avahi       running",
                "interfaces  lan0",
                "limits      avahi-cache lan0 ipv4 ~4100 (raise cache-entries-max=4096); neighbour-table ipv4 1024 "
                    + "(raise net.ipv4.neigh.default.gc_thresh3=1024)",
            ]
        )
    }

    @Test("scanning off: no device table, and how to switch it on")
    func scanningOff() {
        #expect(
            SnapshotTable.render(makeSnapshot(scanning: false)) == [
                "scanning    off",
                "host        scanner.local",
                "avahi       running",
                "interfaces  lan0",
                "",
                "Scanning is off: no devices are tracked. Switch it on with: peerscanctl scanning on",
            ]
        )
    }

    @Test("a device without addresses shows -, names from the network are escaped")
    func escaping() {
        let device = makeDevice("x.local", name: "Bad\u{7}Name", services: [makeService("_http._tcp", name: "x")])
        #expect(
            SnapshotTable.render(makeSnapshot(devices: [device])).last
                == #"Bad\u{7}Name  online  x.local  -    -       -          _http._tcp"#
        )
    }

    @Test("a device known only by its MAC address: named by it, with its vendor; an offline device says so")
    func neighbourOnly() {
        let mac = "00:00:0c:12:34:56"
        let plug = Device(
            id: DeviceID(UUID(uuidString: "0b7f3f31-51c8-5a7c-8b8f-2b1c1a7f0b01")!),
            hostName: nil,
            displayName: nil,
            addresses: ["10.231.0.20"],
            interfaces: ["lan0"],
            services: [],
            macAddresses: [mac],
            vendor: "Cisco Systems, Inc",
            online: false
        )
        #expect(
            SnapshotTable.render(makeSnapshot(devices: [plug])).suffix(2) == [
                "NAME               STATE    HOST  MAC                VENDOR              ADDRESSES    SERVICES",
                "00:00:0c:12:34:56  offline  -     00:00:0c:12:34:56  Cisco Systems, Inc  10.231.0.20  -",
            ]
        )
    }
}
