import Discovery
import Foundation
import PeerScanModel
import Testing

@testable import PeerScanCore

private let macA = "00:00:0c:11:22:33"
private let macB = "3c:22:fb:44:55:66"
private let macC = "00:00:0c:77:88:99"

private let presence = DeviceTable.Presence(offlineAfter: .seconds(60), forgetAfter: .seconds(600))

/// Two MAC-only devices, published.
private func twoPhones() throws -> (DeviceTable, DeviceID, DeviceID) {
    var table = DeviceTable(presence: presence)
    table.updateNeighbour(makeNeighbour("10.0.0.5", macA), now: .zero)
    table.updateNeighbour(makeNeighbour("10.0.0.6", macB), now: .zero)
    #expect(table.takeChanges(now: .zero).changes.count == 2)
    _ = table.takeIdentityChanges()
    return (table, DeviceID.make(macAddress: macA), DeviceID.make(macAddress: macB))
}

/// The bindings and splits the registry would store from the identity changes.
private func stored(
    _ changes: [IdentityChange],
    into bindings: inout [IdentityKey: DeviceID],
    apart: inout [DeviceID: Set<IdentityKey>]
) {
    for change in changes {
        switch change {
        case .bound(let key, let id): bindings[key] = id
        case .merged(let id, let survivor):
            for (key, bound) in bindings where bound == id { bindings[key] = survivor }
            apart[survivor, default: []].formUnion(apart.removeValue(forKey: id) ?? [])
            apart[survivor]?.subtract(bindings.filter { $0.value == survivor }.keys)
        case .forgotten(let id):
            bindings = bindings.filter { $0.value != id }
        case .split(let key, let id, let newID):
            bindings[key] = newID
            apart[id, default: []].insert(key)
        }
    }
}

/// A person's merge and split: ``DeviceTable/merge(_:into:)``, ``DeviceTable/split(_:from:)`` and what keeps them.
@Suite struct DeviceMergeSplitTests {
    @Test func mergingTwoMACOnlyDevicesMakesOneItemWithBothMACAddressesInOneTake() throws {
        var (table, a, b) = try twoPhones()
        try table.merge([b], into: a)
        let (changes, events) = table.takeChanges(now: .seconds(1))
        #expect(changes.count == 2)
        #expect(changes.first { $0.id == b }.map { $0.device == nil } == true, "b's item goes")
        let merged = try #require(changes.first { $0.id == a }?.device)
        #expect(merged.macAddresses == [macA, macB] && merged.addresses == ["10.0.0.5", "10.0.0.6"])
        #expect(events.count == 1)
        guard case .merged(let old, into: a)? = events.first else {
            Issue.record("\(events)")
            return
        }
        #expect(old.id == b)
        #expect(table.identities.id(for: .macAddress(macB)) == a)
        #expect(table.takeIdentityChanges() == [.merged(b, into: a)])
        // Nothing flickers afterwards.
        table.updateNeighbour(makeNeighbour("10.0.0.6", macB), now: .seconds(2))
        #expect(table.takeChanges(now: .seconds(2)).changes.isEmpty)
    }

    @Test func aMergeSurvivesARestartWhicheverMACAddressAnswersFirst() throws {
        var (table, a, b) = try twoPhones()
        try table.merge([b], into: a)
        _ = table.takeChanges(now: .seconds(1))
        var bindings: [IdentityKey: DeviceID] = [.macAddress(macA): a, .macAddress(macB): b]
        var apart: [DeviceID: Set<IdentityKey>] = [:]
        stored(table.takeIdentityChanges(), into: &bindings, apart: &apart)
        for first in [macB, macA] {
            var restarted = DeviceTable(
                presence: presence,
                identities: DeviceIdentities(bindings: bindings, apart: apart)
            )
            restarted.updateNeighbour(makeNeighbour(first == macA ? "10.0.0.5" : "10.0.0.6", first), now: .zero)
            _ = restarted.takeChanges(now: .zero)
            restarted.updateNeighbour(makeNeighbour("10.0.0.5", macA), now: .seconds(1))
            restarted.updateNeighbour(makeNeighbour("10.0.0.6", macB), now: .seconds(1))
            _ = restarted.takeChanges(now: .seconds(1))
            #expect(restarted.deviceCount == 1)
            #expect(restarted.published[a]?.device?.macAddresses == [macA, macB], "\(first) first")
        }
    }

    @Test func splittingAKeyOffGivesItADeviceOfItsOwnInOneTakeAndItStaysSplit() throws {
        var (table, a, b) = try twoPhones()
        try table.merge([b], into: a)
        _ = table.takeChanges(now: .seconds(1))
        let newID = try table.split(.macAddress(macB), from: a)
        #expect(newID == b, "the MAC address's own id again: no device holds it now")
        let (changes, events) = table.takeChanges(now: .seconds(2))
        #expect(Set(changes.map(\.id)) == [a, newID])
        #expect(changes.first { $0.id == a }?.device?.macAddresses == [macA], "an update of a")
        #expect(changes.first { $0.id == newID }?.device?.macAddresses == [macB])
        #expect(events == [.split(.macAddress(macB), from: a, into: newID)], "no presence lines")
        #expect(table.identities.areApart(a, newID))
        #expect(throws: DeviceEditError(.onlyKey, id: a, key: .macAddress(macA))) {
            try table.split(.macAddress(macA), from: a)
        }
        #expect(throws: DeviceEditError(.keyNotBound, id: a, key: .macAddress(macC))) {
            try table.split(.macAddress(macC), from: a)
        }
    }

    @Test func anMDNSHostNeverClaimsAMACAddressAPersonSplitOffIt() throws {
        var table = DeviceTable(presence: presence)
        table.updateNeighbour(makeNeighbour("10.0.0.7", macB), now: .zero)
        table.updateMDNSHost(
            hostName: "tv.local",
            host: makeMDNSHost("tv.local", addresses: ["10.0.0.7"]),
            now: .zero
        )
        let tv = try #require(table.takeChanges(now: .zero).changes.first?.id)
        #expect(table.published[tv]?.device?.macAddresses == [macB])

        let macID = try table.split(.macAddress(macB), from: tv)
        let (changes, _) = table.takeChanges(now: .seconds(1))
        #expect(changes.first { $0.id == tv }?.device?.macAddresses == [], "the host keeps its name, not the MAC")
        #expect(changes.first { $0.id == macID }?.device?.macAddresses == [macB])
        // The host announces the address again, the neighbour entry is confirmed again: still two devices.
        table.updateMDNSHost(
            hostName: "tv.local",
            host: makeMDNSHost("tv.local", addresses: ["10.0.0.7"]),
            now: .seconds(2)
        )
        table.updateNeighbour(makeNeighbour("10.0.0.7", macB), now: .seconds(2))
        _ = table.takeChanges(now: .seconds(2))
        #expect(table.deviceCount == 2 && table.identities.id(for: .macAddress(macB)) == macID)

        // After a restart, from what the registry stored: still two.
        var bindings: [IdentityKey: DeviceID] = [:]
        var apart: [DeviceID: Set<IdentityKey>] = [:]
        stored(table.takeIdentityChanges(), into: &bindings, apart: &apart)
        #expect(apart == [tv: [.macAddress(macB)]])
        var restarted = DeviceTable(presence: presence, identities: DeviceIdentities(bindings: bindings, apart: apart))
        restarted.updateMDNSHost(
            hostName: "tv.local",
            host: makeMDNSHost("tv.local", addresses: ["10.0.0.7"]),
            now: .zero
        )
        restarted.updateNeighbour(makeNeighbour("10.0.0.7", macB), now: .zero)
        let again = restarted.takeChanges(now: .zero).changes
        #expect(Set(again.map(\.id)) == [tv, macID])
        // A person's merge joins them again.
        try restarted.merge([macID], into: tv)
        _ = restarted.takeChanges(now: .seconds(1))
        #expect(restarted.deviceCount == 1 && restarted.published[tv]?.device?.macAddresses == [macB])
        #expect(!restarted.identities.areApart(tv, macID))
    }

    @Test func aHostNameSplitOffItsMACAddressesDeviceKeepsItsOwnID() throws {
        var table = DeviceTable(presence: presence)
        table.updateNeighbour(makeNeighbour("10.0.0.5", macA), now: .zero)
        let id = try #require(table.takeChanges(now: .zero).changes.first?.id)
        table.updateMDNSHost(
            hostName: "nas.local",
            host: makeMDNSHost("nas.local", addresses: ["10.0.0.5"]),
            now: .seconds(1)
        )
        _ = table.takeChanges(now: .seconds(1))
        #expect(table.identities.id(for: .hostName("nas.local")) == id, "the MAC-only device's id, taken by the host")

        let named = try table.split(.hostName("nas.local"), from: id)
        _ = table.takeChanges(now: .seconds(2))
        #expect(
            table.published[named]?.device?.hostName == "nas.local"
                && table.published[named]?.device?.macAddresses == []
        )
        #expect(table.published[id]?.device?.hostName == nil && table.published[id]?.device?.macAddresses == [macA])
    }

    @Test func mergesAreRefusedWithTheReason() throws {
        var table = DeviceTable(presence: presence)
        table.updateMDNSHost(
            hostName: "a.local",
            host: makeMDNSHost("a.local", addresses: ["10.0.0.1"]),
            now: .zero
        )
        table.updateMDNSHost(
            hostName: "b.local",
            host: makeMDNSHost("b.local", addresses: ["10.0.0.2"]),
            now: .zero
        )
        _ = table.takeChanges(now: .zero)
        let a = DeviceID.make(hostName: "a.local")
        let b = DeviceID.make(hostName: "b.local")
        #expect(throws: DeviceEditError(.twoMDNSHosts, id: a, other: b)) { try table.merge([b], into: a) }
        #expect(throws: DeviceEditError(.sameDevice, id: a)) { try table.merge([a], into: a) }
        let unknown = DeviceID.make(hostName: "nobody.local")
        #expect(throws: DeviceEditError(.unknownDevice, id: unknown)) { try table.merge([unknown], into: a) }
        #expect(table.takeChanges(now: .seconds(1)).changes.isEmpty, "nothing changed")
    }

    @Test func aMACOnlyDeviceMergedIntoAHostJoinsItAndItsLabelFollows() throws {
        var table = DeviceTable(presence: presence)
        table.updateMDNSHost(
            hostName: "laptop.local",
            host: makeMDNSHost("laptop.local", addresses: ["10.0.0.9"]),
            now: .zero
        )
        table.updateNeighbour(makeNeighbour("10.0.0.8", macC), now: .zero)
        _ = table.takeChanges(now: .zero)
        let laptop = DeviceID.make(hostName: "laptop.local")
        let dock = DeviceID.make(macAddress: macC)
        _ = table.setLabel(DeviceLabelEdit(note: "USB dock"), of: dock)
        try table.merge([dock], into: laptop)
        let (changes, events) = table.takeChanges(now: .seconds(1))
        let merged = try #require(changes.first { $0.id == laptop }?.device)
        #expect(merged.macAddresses == [macC] && merged.addresses.contains("10.0.0.8"))
        #expect(changes.first { $0.id == dock }.map { $0.device == nil } == true)
        #expect(events.count == 1)
        #expect(table.labels.label(of: laptop).note == "USB dock")
    }

    @Test func anAutomaticMergeOfDevicesSplitApartIsRefusedAndAPersonsJoinsThem() {
        let d = DeviceID.make(macAddress: macA)
        var identities = DeviceIdentities(bindings: [.macAddress(macA): d, .macAddress(macB): d])
        let n = identities.split(.macAddress(macB), from: d)
        #expect(n == DeviceID.make(macAddress: macB))
        let onlyKey = identities.split(.macAddress(macA), from: d)
        #expect(onlyKey == nil, "its only key")
        let automatic = identities.merge(DeviceID.make(macAddress: macB), into: d)
        let reversed = identities.merge(d, into: DeviceID.make(macAddress: macB))
        #expect(!automatic && !reversed, "refused, either way round")
        #expect(identities.keysApart(from: d) == [.macAddress(macB)])
        let byPerson = identities.merge(DeviceID.make(macAddress: macB), into: d, byPerson: true)
        #expect(byPerson)
        #expect(
            identities.keysApart(from: d) == [] && identities.keys(of: d) == [.macAddress(macA), .macAddress(macB)]
        )
        #expect(
            identities.takeChanges() == [
                .split(.macAddress(macB), from: d, to: DeviceID.make(macAddress: macB)),
                .merged(DeviceID.make(macAddress: macB), into: d),
            ]
        )
    }

    @Test func anMDNSHostMergedIntoAMACOnlyDeviceTakesItsID() throws {
        var table = DeviceTable(presence: presence)
        table.updateNeighbour(makeNeighbour("10.0.0.5", macA), now: .zero)
        table.updateNeighbour(makeNeighbour("10.0.0.7", macB), now: .zero)
        table.updateMDNSHost(
            hostName: "tv.local",
            host: makeMDNSHost("tv.local", addresses: ["10.0.0.7"]),
            now: .zero
        )
        _ = table.takeChanges(now: .zero)
        let box = DeviceID.make(macAddress: macA)
        let tv = try #require(table.identities.id(for: .hostName("tv.local")))
        try table.merge([tv], into: box)
        let (changes, events) = table.takeChanges(now: .seconds(1))
        #expect(changes.first { $0.id == tv }.map { $0.device == nil } == true)
        let merged = try #require(changes.first { $0.id == box }?.device)
        #expect(merged.hostName == "tv.local" && merged.macAddresses == [macA, macB])
        #expect(events.count == 1 && table.deviceCount == 1)
        // Stable: nothing changes at the next take.
        #expect(table.takeChanges(now: .seconds(2)).changes.isEmpty)
    }

    @Test func aPersonsKeyTextIsParsed() {
        #expect(IdentityKey(typed: "AA:BB:CC:00:11:22") == .macAddress("aa:bb:cc:00:11:22"))
        #expect(IdentityKey(typed: "mac:aa:bb:cc:00:11:22") == .macAddress("aa:bb:cc:00:11:22"))
        #expect(IdentityKey(typed: "NAS") == .hostName("nas.local"))
        #expect(IdentityKey(typed: "nas.local.") == .hostName("nas.local"))
        #expect(IdentityKey(typed: "host:tv.local") == .hostName("tv.local"))
        #expect(IdentityKey(typed: " ") == nil)
    }
}
