// Device identifiers: RFC 9562 version 5 UUIDs of canonical host names, stable across machines and versions.

import Foundation
import PeerScanModel
import Testing

@testable import PeerScanCore

@Suite struct DeviceIDTests {
    /// RFC 9562's DNS namespace.
    private static let dnsNamespace = UUID(uuidString: "6ba7b810-9dad-11d1-80b4-00c04fd430c8")!

    @Test func matchesTheVersion5TestVectorOfRFC9562() {
        // RFC 9562, appendix A.4: the DNS namespace and "www.example.com".
        let uuid = DeviceID.makeNameBased(namespace: Self.dnsNamespace, name: "www.example.com")
        #expect(uuid == UUID(uuidString: "2ed6657d-e927-568b-95e1-2665a8aea6a2"))
    }

    @Test(arguments: ["", "a", "tv.local", "config:scanning", String(repeating: "ü", count: 300)])
    func setsTheVersionAndVariantBits(name: String) {
        let bytes = DeviceID.makeNameBased(namespace: DeviceID.namespace, name: name).uuid
        #expect(bytes.6 >> 4 == 5, "version 5")
        #expect(bytes.8 >> 6 == 0b10, "RFC 9562 variant")
    }

    // PeerScanModel writes the config items' ids as literals (clients derive nothing): they are the derivation's.
    @Test func theConfigItemLiteralsAreTheirNamesDerivedIds() {
        #expect(
            DeviceID.scanning
                == DeviceID(DeviceID.makeNameBased(namespace: DeviceID.namespace, name: "config:scanning"))
        )
        #expect(DeviceID.host == DeviceID(DeviceID.makeNameBased(namespace: DeviceID.namespace, name: "config:host")))
    }

    // The identifiers are part of the wire format: every peerscand gives a device the same one, so they must never
    // change. Expected values computed independently (Python's uuid.uuid5).
    @Test func identifiersArePinned() {
        #expect(DeviceID.namespace == UUID(uuidString: "569fff66-1d8f-546f-a53a-3824621dffa0"))
        #expect(DeviceID.scanning.description == "e9ccc214-97ef-5094-a5c1-f0cb9c42431b")
        #expect(DeviceID.host.description == "7c036252-be0a-587e-800d-6317b320aeac")
        #expect(DeviceID.make(hostName: "tv.local").description == "f4975d4f-737c-5e42-ad09-e4b1c6ee6386")
    }

    @Test func scanningAndHostIdentifiersAreDistinct() {
        #expect(DeviceID.scanning != DeviceID.host)
        #expect(DeviceID.make(hostName: "scanning.local") != DeviceID.scanning)
        #expect(DeviceID.make(hostName: "host.local") != DeviceID.host)
    }

    @Test(arguments: ["TV.local.", "tv.local.", "TV.LOCAL", "Tv.Local..", "tv.local"])
    func ignoresCaseAndTrailingDots(spelling: String) {
        #expect(DeviceID.canonicalHostName(spelling) == "tv.local")
        #expect(DeviceID.make(hostName: spelling) == DeviceID.make(hostName: "tv.local"))
    }

    @Test(arguments: [
        ("Télé.Local.", "télé.local"), ("télé.local", "télé.local"), ("", ""), ("..", ""), ("a.b", "a.b"),
    ])
    func canonicalizesNamesBeyondASCIIAndEdgeCases(spelling: String, canonical: String) {
        #expect(DeviceID.canonicalHostName(spelling) == canonical)
    }

    @Test func differentHostsHaveDifferentIdentifiers() {
        #expect(DeviceID.make(hostName: "tv.local") != DeviceID.make(hostName: "tv2.local"))
        #expect(DeviceID.make(hostName: "tv.local") != DeviceID.make(hostName: "tv.lan"))
    }

    @Test func encodesAsALowercaseString() throws {
        let id = DeviceID.make(hostName: "tv.local")
        let json = String(decoding: try JSONEncoder().encode(id), as: UTF8.self)
        #expect(json == "\"f4975d4f-737c-5e42-ad09-e4b1c6ee6386\"")
        #expect(id.description == id.uuid.uuidString.lowercased())
    }

    @Test func decodesEitherCase() throws {
        let id = DeviceID.make(hostName: "tv.local")
        let upper = Data("\"\(id.description.uppercased())\"".utf8)
        #expect(try JSONDecoder().decode(DeviceID.self, from: upper) == id)
    }

    @Test(arguments: ["\"not-a-uuid\"", "\"\"", "42", "null"])
    func decodingSomethingElseThanAUUIDThrows(json: String) {
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(DeviceID.self, from: Data(json.utf8)) }
    }

    @Test func ordersByTextForm() {
        let ids = ["a.local", "b.local", "c.local", "d.local"].map { DeviceID.make(hostName: $0) }
        #expect(ids.sorted().map(\.description) == ids.map(\.description).sorted())
    }
}
