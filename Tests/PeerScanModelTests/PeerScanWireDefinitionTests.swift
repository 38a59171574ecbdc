import Foundation
import PeerScanModel
import Testing

@Suite struct PeerScanWireDefinitionTests {
    /// The definition is embedded from `io.peerscan.varlink` at build time: the served text is the file's, byte for
    /// byte.
    @Test func theServedDefinitionIsTheCommittedVarlinkFile() throws {
        let file = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/PeerScanModel/io.peerscan.varlink")
        #expect(PeerScanWire.definition == (try String(contentsOf: file, encoding: .utf8)))
    }

    @Test func theDefinitionDeclaresTheInterfaceAndItsMethods() {
        let lines = PeerScanWire.definition.split(separator: "\n").map(String.init)
        #expect(lines.contains("interface \(PeerScanWire.interfaceName)"))
        for method in ["GetSnapshot", "Monitor", "SetScanning"] {
            #expect(lines.contains { $0.hasPrefix("method \(method)(") }, "method \(method)")
        }
        #expect(lines.contains { $0.hasPrefix("error PermissionDenied") })
    }

    @Test func theConfigItemIdsAreDistinctLowercaseUUIDs() {
        #expect(DeviceID.scanning != DeviceID.host)
        #expect(DeviceID.scanning.description == "e9ccc214-97ef-5094-a5c1-f0cb9c42431b")
        #expect(DeviceID.host.description == "7c036252-be0a-587e-800d-6317b320aeac")
    }
}
