import ArgumentParser
import Diffable
import Foundation
import PeerScanModel

/// `peerscan-bench encoding`: PeerScanModel's streaming reply encoder against `JSONEncoder` on the whole reply.
struct EncodingBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encoding",
        abstract:
            "Time the io.peerscan reply encoders and the memory they take, against JSONEncoder on the whole reply.",
        discussion: """
            Three replies of N synthetic devices: the snapshot (GetSnapshot, a client's first Monitor reply), the \
            changeset that switches scanning on (N inserts), and a changeset of one device (the hot path, encoded \
            once per change for all clients). Each is encoded by PeerScanWire's streaming encoder (one item at a \
            time) and by JSONEncoder on the Codable reply type (the baseline; the bytes are the same). Reported: \
            the median time, and the growth of the peak RSS over one encoding (the streaming encoder first, after \
            a malloc_trim, so that memory the baseline's tree leaves with the allocator does not hide its own).
            """
    )

    @Option(help: "The number of devices N.") var devices = 10_000
    @Option(help: "Timed runs of each encoding.") var runs = 11

    func run() async throws {
        let off = try ScanSnapshot([(.config, [.scanning(enabled: false)])])
        let peers = (0..<devices).map { ScanItem.device(Self.device($0, value: 0)) }
        let on = try ScanSnapshot([(.config, [.scanning(enabled: true)]), (.networks, peers)])
        var changed = on
        try changed.updateItems([.device(Self.device(devices / 2, value: 1))])
        let switchedOn = on.difference(from: off)
        let oneDevice = changed.difference(from: on)

        print("| reply | encoder | median (ms) | peak RSS growth (MiB) | bytes |")
        print("|---|---|---:|---:|---:|")
        try measure("snapshot, \(devices) devices") {
            try PeerScanWire.encodeSnapshotReply(epoch: "bench", sequence: 1, snapshot: on, resync: nil)
        } whole: {
            try PeerScanWire.makeJSONEncoder().encode(
                PeerScanWire.SnapshotReply(epoch: "bench", sequence: 1, snapshot: on)
            )
        }
        try measure("changeset, \(switchedOn.itemInserts.count) inserts") {
            try PeerScanWire.encodeChangesReply(epoch: "bench", sequence: 2, changes: switchedOn)
        } whole: {
            try PeerScanWire.makeJSONEncoder().encode(
                PeerScanWire.MonitorReply(epoch: "bench", sequence: 2, changes: switchedOn)
            )
        }
        try measure("changeset, 1 update") {
            try PeerScanWire.encodeChangesReply(epoch: "bench", sequence: 3, changes: oneDevice)
        } whole: {
            try PeerScanWire.makeJSONEncoder().encode(
                PeerScanWire.MonitorReply(epoch: "bench", sequence: 3, changes: oneDevice)
            )
        }
    }

    /// Prints a row for each encoder; fails if their bytes differ.
    private func measure(_ reply: String, streaming: () throws -> Data, whole: () throws -> Data) throws {
        try row(reply, "streaming", streaming)
        try row(reply, "JSONEncoder (baseline)", whole)
        guard try streaming() == whole() else { throw ValidationError("\(reply): the encoders' bytes differ") }
    }

    /// One encoder's row: its peak RSS growth over a first encoding, then its median time.
    private func row(_ reply: String, _ name: String, _ encode: () throws -> Data) throws {
        Measurement.resetPeakResidentBytes()
        let before = Measurement.residentBytes().current
        let size = try encode().count
        let growth = Double(Measurement.residentBytes().peak - before) / 1_048_576
        var failure: (any Error)?
        let (milliseconds, _) = Measurement.medianMilliseconds(runs: runs) {
            do { _ = try encode() } catch { failure = error }
        }
        if let failure { throw failure }
        let time = String(format: "%.3f", milliseconds)
        print("| \(reply) | \(name) | \(time) | \(String(format: "%.1f", growth)) | \(size) |")
    }

    /// A device like those a LAN has: names, two addresses, a service with TXT entries, a MAC address, a vendor.
    private static func device(_ number: Int, value: Int) -> Device {
        Device(
            id: DeviceID(text: String(format: "00000000-0000-4000-8000-%012x", number))!,
            hostName: "device-\(number).local",
            displayName: "Device \(number)",
            addresses: ["10.\(number >> 16 & 255).\(number >> 8 & 255).\(number & 255)", "fe80::\(number)%bench0"],
            interfaces: ["bench0"],
            services: [
                DeviceService(
                    name: "Device \(number)",
                    type: "_http._tcp",
                    domain: "local",
                    port: 80,
                    txt: [TXTEntry(key: "path", value: "/"), TXTEntry(key: "value", value: "\(value)")]
                )
            ],
            macAddresses: [
                String(format: "02:00:00:%02x:%02x:%02x", number >> 16 & 255, number >> 8 & 255, number & 255)
            ],
            vendor: nil
        )
    }
}
