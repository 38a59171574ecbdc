import Discovery
import Foundation
import PeerScanCore
import PeerScanModel
import Testing

private let macA = "00:00:0c:11:22:33"
private let macB = "3c:22:fb:44:55:66"

private let presence = DeviceTable.Presence(offlineAfter: .seconds(60), forgetAfter: .seconds(600))

/// Sticky identifiers: the rules of ``DeviceIdentities`` as the device table applies them.
@Suite struct DeviceIdentityTests {
    @Test func identifiersSurviveARestartWhicheverSourceSeesTheDeviceFirst() throws {
        // First run: a MAC-only device that later announces mDNS.
        var first = DeviceTable(presence: presence)
        first.updateNeighbour(makeNeighbour("10.0.0.5", macA), now: .zero)
        let id = try #require(first.takeChanges(now: .zero).changes.first?.id)
        first.updateMDNSHost(
            hostName: "nas.local",
            host: makeMDNSHost("nas.local", addresses: ["10.0.0.5"]),
            now: .zero
        )
        _ = first.takeChanges(now: .zero)
        var bindings: [IdentityKey: DeviceID] = [:]
        for case .bound(let key, let bound) in first.takeIdentityChanges() { bindings[key] = bound }
        #expect(bindings == [.macAddress(macA): id, .hostName("nas.local"): id])

        // Second run, the mDNS host seen before its neighbour entry: the same identifier, not the host name's.
        var second = DeviceTable(presence: presence, identities: DeviceIdentities(bindings: bindings))
        second.updateMDNSHost(
            hostName: "nas.local",
            host: makeMDNSHost("nas.local", addresses: ["10.0.0.5"]),
            now: .zero
        )
        let (changes, events) = second.takeChanges(now: .zero)
        #expect(changes.map(\.id) == [id])
        #expect(events == [.returned(try #require(changes.first?.device))], "known: not a new device")
        // Third run, only its MAC address answers: still the same.
        var third = DeviceTable(presence: presence, identities: DeviceIdentities(bindings: bindings))
        third.updateNeighbour(makeNeighbour("10.0.0.5", macA), now: .zero)
        #expect(third.takeChanges(now: .zero).changes.map(\.id) == [id])
    }

    @Test func oneMACAddressSharedByTwoHostNamesStaysWithTheFirst() throws {
        var table = DeviceTable(presence: presence)
        table.updateNeighbour(makeNeighbour("10.0.0.7", macB), now: .zero)
        table.updateMDNSHost(
            hostName: "a.local",
            host: makeMDNSHost("a.local", addresses: ["10.0.0.7"]),
            now: .zero
        )
        let a = try #require(table.takeChanges(now: .zero).changes.first { $0.device?.hostName == "a.local" }?.id)
        // A second name on the same host (a sleep proxy, a bridge): a device of its own.
        table.updateMDNSHost(
            hostName: "b.local",
            host: makeMDNSHost("b.local", addresses: ["10.0.0.7"]),
            now: .zero
        )
        let b = try #require(table.takeChanges(now: .zero).changes.first { $0.device?.hostName == "b.local" }?.id)
        #expect(a != b)
        #expect(b == DeviceID.make(hostName: "b.local"))
        #expect(table.identities.id(for: .macAddress(macB)) == a)
    }

    @Test func forgettingASilentDeviceRemovesItAndItIsNewWhenItComesBack() throws {
        var table = DeviceTable(presence: presence)
        table.updateNeighbour(makeNeighbour("10.0.0.5", macA), now: .zero)
        let id = try #require(table.takeChanges(now: .zero).changes.first?.id)
        table.updateNeighbour(makeNeighbour("10.0.0.5", macA, .failed), now: .seconds(1))
        _ = table.takeChanges(now: .seconds(1))
        let known = table.forget(id, now: .seconds(2))
        #expect(known)
        let (changes, events) = table.takeChanges(now: .seconds(2))
        #expect(changes.count == 1 && changes.first?.id == id && changes.first?.device == nil)
        #expect(events.count == 1)
        let identityChanges = table.takeIdentityChanges()
        #expect(identityChanges.contains(.forgotten(id)))
        #expect(table.identities.id(for: .macAddress(macA)) == nil)
        table.updateNeighbour(makeNeighbour("10.0.0.5", macA), now: .seconds(3))
        let back = table.takeChanges(now: .seconds(3))
        #expect(back.changes.map(\.id) == [id])  // the name-based identifier of its MAC address again
        #expect(back.events.count == 1)
        if case .appeared = back.events.first {} else { Issue.record("expected a new device: \(back.events)") }
        let unknown = table.forget(DeviceID(UUID()), now: .seconds(4))
        #expect(!unknown)
    }

    @Test func forgettingADeviceThatAnswersKeepsItListedWithItsHistoryStartedOver() throws {
        var table = DeviceTable(presence: presence)
        table.updateNeighbour(makeNeighbour("10.0.0.5", macA), now: .zero)
        let id = try #require(table.takeChanges(now: .zero).changes.first?.id)
        _ = table.takeIdentityChanges()
        let known = table.forget(id, now: .seconds(1))
        #expect(known)
        let (changes, events) = table.takeChanges(now: .seconds(1))
        #expect(changes.map(\.id) == [id] && changes.first?.device != nil, "still there")
        if case .appeared = events.first {} else { Issue.record("expected a new device: \(events)") }
        let identityChanges = table.takeIdentityChanges()
        #expect(identityChanges == [.forgotten(id), .bound(.macAddress(macA), id)])
    }

    @Test func aHostNameKeyIsCanonical() {
        var identities = DeviceIdentities()
        var table = DeviceTable(identities: identities)
        table.updateMDNSHost(hostName: "NAS.local.", host: makeMDNSHost("NAS.local.", addresses: []), now: .zero)
        _ = table.takeChanges(now: .zero)
        identities = table.identities
        #expect(identities.id(for: .hostName("nas.local")) == DeviceID.make(hostName: "NAS.local."))
        #expect(IdentityKey("host:nas.local") == .hostName("nas.local"))
        #expect(IdentityKey("mac:\(macA)")?.description == "mac:\(macA)")
        #expect(IdentityKey("bogus") == nil)
    }
}

@Suite struct DeviceIdentityLinkTests {
    /// After a restart, a host whose announced address is not resolved yet, and its MAC address answering on
    /// another: one device, with the id the registry knows, whichever comes first.
    @Test(arguments: [true, false])
    func aMACAddressTheRegistryKnowsAsAHostsIsThatHostsBeforeItsAddressesResolve(macFirst: Bool) throws {
        let id = DeviceID.make(macAddress: macA)
        let identities = DeviceIdentities(bindings: [.macAddress(macA): id, .hostName("nas.local"): id])
        var table = DeviceTable(presence: presence, identities: identities)
        let nas = makeMDNSHost("nas.local", addresses: ["fd00::99"])  // not in the neighbour table
        if macFirst {
            table.updateNeighbour(makeNeighbour("10.0.0.5", macA), now: .zero)
            #expect(table.takeChanges(now: .zero).changes.map(\.id) == [id])
            table.updateMDNSHost(hostName: "nas.local", host: nas, now: .zero)
        } else {
            table.updateMDNSHost(hostName: "nas.local", host: nas, now: .zero)
            #expect(table.takeChanges(now: .zero).changes.map(\.id) == [id])
            table.updateNeighbour(makeNeighbour("10.0.0.5", macA), now: .zero)
        }
        let (changes, events) = table.takeChanges(now: .zero)
        #expect(changes.map(\.id) == [id], "one item, updated")
        let device = try #require(changes.first?.device)
        #expect(device.hostName == "nas.local" && device.macAddresses == [macA])
        #expect(device.addresses == ["10.0.0.5", "fd00::99"])
        #expect(!events.contains { if case .appeared = $0 { true } else { false } })
        #expect(!events.contains { if case .merged = $0 { true } else { false } })
    }
}
