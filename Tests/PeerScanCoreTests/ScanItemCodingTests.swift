// The JSON form of snapshot items: the wire format every client reads.

import Foundation
import Testing

@testable import PeerScanCore

/// A device as the peer table would make it.
private let television = Device(
    id: DeviceID.make(hostName: "tv.local"),
    hostName: "tv.local",
    displayName: "Living Room TV",
    addresses: ["10.0.0.7", "fe80::1%eth0"],
    interfaces: ["eth0"],
    services: [
        DeviceService(
            name: "Living Room TV",
            type: "_airplay._tcp",
            domain: "local",
            port: 7000,
            txt: [TXTEntry("bare", nil), TXTEntry("model", "AppleTV5,3")]
        ),
        DeviceService(name: "Living Room TV", type: "_raop._tcp", domain: "local", port: 7001, txt: []),
    ]
)

private func encode(_ item: ScanItem) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return String(decoding: try encoder.encode(item), as: UTF8.self)
}

private func decode(_ json: String) throws -> ScanItem {
    try JSONDecoder().decode(ScanItem.self, from: Data(json.utf8))
}

@Suite struct ScanItemCodingTests {
    @Test(arguments: [
        ScanItem.scanning(enabled: true),
        .scanning(enabled: false),
        .host(HostStatus()),
        .host(HostStatus(hostName: "me.local", sourceState: .running, interfaces: ["eth0", "wlan0"])),
        .host(HostStatus(hostName: nil, sourceState: .registering, interfaces: [])),
        .host(HostStatus(hostName: "me.local", sourceState: .collision)),
        .host(HostStatus(sourceState: .failure(reason: "Daemon connection failed"))),
        .host(HostStatus(sourceState: .unavailable(reason: "no D-Bus"))),
        .peer(television),
        .peer(
            Device(
                id: DeviceID.make(hostName: "bare.local"),
                hostName: "bare.local",
                displayName: "bare",
                addresses: [],
                interfaces: [],
                services: []
            )
        ),
    ])
    func roundTrips(item: ScanItem) throws {
        let data = try JSONEncoder().encode(item)
        #expect(try JSONDecoder().decode(ScanItem.self, from: data) == item)
    }

    @Test func encodesAPeerWithTheDocumentedKeys() throws {
        let id = DeviceID.make(hostName: "tv.local").description
        #expect(id == id.lowercased())
        let expected = #"""
            {"addresses":["10.0.0.7","fe80::1%eth0"],"displayName":"Living Room TV","hostName":"tv.local",\#
            "id":"\#(id)","interfaces":["eth0"],"kind":"peer","services":[{"domain":"local",\#
            "name":"Living Room TV","port":7000,"txt":{"bare":null,"model":"AppleTV5,3"},"type":"_airplay._tcp"},\#
            {"domain":"local","name":"Living Room TV","port":7001,"txt":{},"type":"_raop._tcp"}]}
            """#
        #expect(try encode(.peer(television)) == expected)
    }

    @Test func encodesTheConfigItemsWithTheDocumentedKeys() throws {
        #expect(
            try encode(.scanning(enabled: false))
                == #"{"enabled":false,"id":"e9ccc214-97ef-5094-a5c1-f0cb9c42431b","kind":"scanning"}"#
        )
        let expectedHost = #"""
            {"avahiReason":"no D-Bus","avahiState":"unavailable","hostName":null,\#
            "id":"7c036252-be0a-587e-800d-6317b320aeac","interfaces":["eth0"],"kind":"host"}
            """#
        #expect(
            try encode(.host(HostStatus(sourceState: .unavailable(reason: "no D-Bus"), interfaces: ["eth0"])))
                == expectedHost
        )
    }

    @Test func decodesAHostWithoutAReasonAsAnEmptyReason() throws {
        let json = #"{"id":"\#(DeviceID.host)","kind":"host","avahiState":"failure","interfaces":[]}"#
        #expect(try decode(json) == .host(HostStatus(sourceState: .failure(reason: ""))))
    }

    @Test(arguments: [
        (#"{"id":"\#(DeviceID.scanning)","kind":"switch","enabled":true}"#, "an unknown kind"),
        (#"{"id":"\#(DeviceID.scanning)","enabled":true}"#, "no kind"),
        (#"{"id":"not-a-uuid","kind":"scanning","enabled":true}"#, "a bad UUID"),
        (#"{"id":"\#(DeviceID.host)","kind":"scanning","enabled":true}"#, "a scanning item with the host's id"),
        (
            #"{"id":"\#(DeviceID.make(hostName: "tv.local"))","kind":"scanning","enabled":true}"#,
            "a scanning item with a device's id"
        ),
        (
            #"{"id":"\#(DeviceID.scanning)","kind":"host","avahiState":"running","interfaces":[]}"#,
            "a host item with the scanning id"
        ),
        (#"{"id":"\#(DeviceID.host)","kind":"host","avahiState":"asleep","interfaces":[]}"#, "an unknown Avahi state"),
        (#"{"id":"\#(DeviceID.scanning)","kind":"scanning"}"#, "a missing field"),
    ])
    func decodingAnInconsistentItemThrows(json: String, problem: String) {
        #expect(throws: DecodingError.self, "\(problem)") { try decode(json) }
    }

    // A peer's id is the UUID of its host name; a peer claiming another id (here the scanning item's) would make a
    // client's snapshot hold two items with one identifier.
    @Test func decodingAPeerWhoseIdIsNotItsHostNamesThrows() throws {
        var json = try encode(.peer(television))
        json = json.replacingOccurrences(of: television.id.description, with: DeviceID.scanning.description)
        #expect(throws: DecodingError.self) { try decode(json) }
    }
}
