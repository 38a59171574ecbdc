import Diffable
import Discovery
import MonitoringLog
import PeerScanModel
import Testing

@testable import PeerScanCore

@Suite struct SnapshotProjectionTests {
    private func device(_ name: String, address: String) -> Device {
        Device(
            id: DeviceID.make(hostName: "\(name).local"),
            hostName: "\(name).local",
            displayName: name,
            addresses: [address],
            interfaces: ["eth0"],
            services: []
        )
    }

    @Test func insertsDevicesInDisplayOrderAndUpdatesInPlace() throws {
        let host = HostStatus(interfaces: ["eth0"])
        let start = SnapshotProjection.initial(isScanning: true, host: host)
        let b = device("Bravo", address: "10.0.0.2")
        let a = device("Alpha", address: "10.0.0.1")
        let c = device("Charlie", address: "10.0.0.3")
        var (snapshot, logs) = try SnapshotProjection.edit(
            start,
            isScanning: true,
            host: host,
            changed: [(b.id, .device(b)), (c.id, .device(c)), (a.id, .device(a))]
        )
        #expect(snapshot.devices.map(\.displayName) == ["Alpha", "Bravo", "Charlie"])
        #expect(logs.isEmpty, "coming has a line of its own")

        var moved = b
        moved.addresses = ["10.0.0.22"]
        (snapshot, logs) = try SnapshotProjection.edit(
            snapshot,
            isScanning: true,
            host: host,
            changed: [(b.id, .device(moved))]
        )
        #expect(snapshot.devices.map(\.addresses) == [["10.0.0.1"], ["10.0.0.22"], ["10.0.0.3"]])
        #expect(logs.map(\.message) == [.deviceChanged])
        #expect(logs.first?.metadata["fields"] == "addresses")

        (snapshot, logs) = try SnapshotProjection.edit(snapshot, isScanning: true, host: host, changed: [(a.id, nil)])
        #expect(snapshot.devices.map(\.displayName) == ["Bravo", "Charlie"])
    }

    @Test func nothingChangedReturnsTheSameSnapshot() throws {
        let host = HostStatus(interfaces: ["eth0"])
        let start = SnapshotProjection.initial(isScanning: true, host: host)
        let (snapshot, logs) = try SnapshotProjection.edit(start, isScanning: true, host: host, changed: [])
        #expect(snapshot == start)
        #expect(logs.isEmpty)
    }

    @Test func scanningOffRemovesTheNetworksSectionAndOnBringsItBack() throws {
        let host = HostStatus(interfaces: ["eth0"])
        let start = SnapshotProjection.initial(isScanning: true, host: host)
        let (off, _) = try SnapshotProjection.edit(start, isScanning: false, host: host, changed: [])
        #expect(!off.contains(section: .networks))
        #expect(off.item(withIdentifier: DeviceID.scanning) == .scanning(enabled: false))
        let (on, _) = try SnapshotProjection.edit(off, isScanning: true, host: host, changed: [])
        #expect(on.contains(section: .networks))
    }
}
