// The JSON form of snapshot items: the wire format every client reads.

import Foundation
import PeerScanModel
import Testing

/// The id the daemon gives `tv.local` (uuid5 of the host name in peerscan's namespace).
private let televisionID = DeviceID(UUID(uuidString: "f4975d4f-737c-5e42-ad09-e4b1c6ee6386")!)

/// A device as the mDNS host table would make it.
private let television = Device(
    id: televisionID,
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
            txt: [TXTEntry(key: "bare", value: nil), TXTEntry(key: "model", value: "AppleTV5,3")]
        ),
        DeviceService(name: "Living Room TV", type: "_raop._tcp", domain: "local", port: 7001, txt: []),
    ],
    macAddresses: ["3c:22:fb:44:55:66"],
    vendor: "Apple, Inc.",
    presenceReason: PresenceReason(.answered, ["arp"])
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
        .host(
            HostStatus(
                sourceState: .running,
                interfaces: ["eth0"],
                limits: [
                    SystemLimit(name: "avahi-cache eth0 ipv4", value: 4100, setting: "cache-entries-max=4096"),
                    SystemLimit(
                        name: "neighbour-table ipv6",
                        value: 1024,
                        setting: "net.ipv6.neigh.default.gc_thresh3=1024"
                    ),
                ]
            )
        ),
        .device(television),
        .device(
            Device(
                id: DeviceID(UUID(uuidString: "c45eec53-58f7-538b-bb64-7829098a1339")!),
                hostName: "bare.local",
                displayName: "bare",
                addresses: [],
                interfaces: [],
                services: []
            )
        ),
        .device(
            Device(
                id: DeviceID(UUID(uuidString: "0b7f3f31-51c8-5a7c-8b8f-2b1c1a7f0b01")!),
                hostName: nil,
                displayName: nil,
                addresses: ["10.0.0.20"],
                interfaces: ["lan0"],
                services: [],
                macAddresses: ["02:aa:bb:cc:dd:ee"],
                vendor: nil,
                online: false
            )
        ),
    ])
    func roundTrips(item: ScanItem) throws {
        let data = try JSONEncoder().encode(item)
        #expect(try JSONDecoder().decode(ScanItem.self, from: data) == item)
    }

    @Test func encodesAPeerWithTheDocumentedKeys() throws {
        let id = televisionID.description
        #expect(id == id.lowercased())
        let expected = #"""
            {"addresses":["10.0.0.7","fe80::1%eth0"],"displayName":"Living Room TV","hostName":"tv.local",\#
            "id":"\#(id)","important":false,"interfaces":["eth0"],"kind":"peer","label":null,\#
            "macAddresses":["3c:22:fb:44:55:66"],"online":true,"presenceReason":"answered via=arp",\#
            "services":[{"domain":"local",\#
            "name":"Living Room TV","port":7000,"txt":{"bare":null,"model":"AppleTV5,3"},"type":"_airplay._tcp"},\#
            {"domain":"local","name":"Living Room TV","port":7001,"txt":{},"type":"_raop._tcp"}],\#
            "vendor":"Apple, Inc."}
            """#
        #expect(try encode(.device(television)) == expected)
    }

    @Test(arguments: ["answered via=arp,ndp", "answered via=mdns", "unanswered asked=arp,ndp,mdns", "withdrawn"])
    func `a presence reason's text parses back to itself`(text: String) throws {
        #expect(try #require(PresenceReason(text)).description == text)
    }

    @Test(arguments: ["", "online", "answered asked=arp", "unanswered via=arp", "withdrawn via=arp", "answered arp"])
    func `text that is not a presence reason is refused`(text: String) {
        #expect(PresenceReason(text) == nil)
    }

    @Test func encodesTheConfigItemsWithTheDocumentedKeys() throws {
        #expect(
            try encode(.scanning(enabled: false))
                == #"{"enabled":false,"id":"e9ccc214-97ef-5094-a5c1-f0cb9c42431b","kind":"scanning"}"#
        )
        let expectedHost = #"""
            {"avahiReason":"no D-Bus","avahiState":"unavailable","hostName":null,\#
            "id":"7c036252-be0a-587e-800d-6317b320aeac","interfaces":["eth0"],"kind":"host","limits":[]}
            """#
        #expect(
            try encode(.host(HostStatus(sourceState: .unavailable(reason: "no D-Bus"), interfaces: ["eth0"])))
                == expectedHost
        )
    }

    @Test func encodesALimitWithTheDocumentedKeys() throws {
        let limit = SystemLimit(
            name: "neighbour-table ipv4",
            value: 1024,
            setting: "net.ipv4.neigh.default.gc_thresh3=1024"
        )
        let json = try encode(.host(HostStatus(sourceState: .running, limits: [limit])))
        #expect(
            json.contains(
                #""limits":[{"name":"neighbour-table ipv4","setting":"net.ipv4.neigh.default.gc_thresh3=1024","value":1024}]"#
            )
        )
    }

    @Test func decodesAHostWithoutLimitsAsNoLimitReached() throws {
        let json = #"{"id":"\#(DeviceID.host)","kind":"host","avahiState":"running","interfaces":["eth0"]}"#
        #expect(try decode(json) == .host(HostStatus(sourceState: .running, interfaces: ["eth0"], limits: [])))
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
            #"{"id":"\#(televisionID)","kind":"scanning","enabled":true}"#,
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

    // A peer claiming a config item's id would make a client's snapshot hold two items with one identifier.
    @Test(arguments: [DeviceID.scanning, DeviceID.host])
    func decodingAPeerWithAConfigItemsIdThrows(configID: DeviceID) throws {
        var json = try encode(.device(television))
        json = json.replacingOccurrences(of: television.id.description, with: configID.description)
        #expect(throws: DecodingError.self) { try decode(json) }
    }

    // Clients take peer ids as they come: decoding does not re-derive them from host names (no SHA-1 per peer).
    @Test func decodingAPeerKeepsItsIdAsReceived() throws {
        let other = DeviceID(UUID(uuidString: "00000000-0000-4000-8000-000000000001")!)
        let json = try encode(.device(television)).replacingOccurrences(
            of: television.id.description,
            with: other.description
        )
        #expect(try decode(json).id == other)
    }
}
