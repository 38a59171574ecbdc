// The mDNS host table: service instances (one per interface, protocol and service) grouped into one device per host
// name.

import Discovery
import NetworkInterfaces
import PeerScanModel
import Testing

@testable import PeerScanCore

/// A table after resolving these instances, in order, with the changes they caused already taken.
private func makeTable(_ instances: ServiceInstance...) -> MDNSHostTable {
    var table = MDNSHostTable()
    for instance in instances { table.apply(.serviceResolved(instance)) }
    _ = table.takeChangedHosts().changes
    return table
}

/// The host names `takeChangedHosts()` reports, and whether each still has a device.
private func takeChanges(_ table: inout MDNSHostTable) -> [String: Bool] {
    Dictionary(uniqueKeysWithValues: table.takeChangedHosts().changes.map { ($0.hostName, $0.host != nil) })
}

@Suite struct MDNSHostTableTests {
    // MARK: Grouping

    @Test func groupsEveryInstanceOfAHostIntoOneDevice() throws {
        let table = makeTable(
            makeInstance("TV", type: "_airplay._tcp", host: "tv.local", interface: "eth0", ipProtocol: .ipv4),
            makeInstance("TV", type: "_airplay._tcp", host: "tv.local", interface: "eth0", ipProtocol: .ipv6),
            makeInstance("TV", type: "_airplay._tcp", host: "tv.local", interface: "wlan0", ipProtocol: .ipv4),
            makeInstance("TV", type: "_raop._tcp", host: "TV.local.", interface: "wlan0", ipProtocol: .ipv6)
        )
        #expect(table.deviceCount == 1)
        let device = try #require(table.host(named: "tv.local"))
        #expect(device.hostName == "tv.local")
        #expect(device.interfaces == ["eth0", "wlan0"])
        #expect(device.services.map(\.type) == ["_airplay._tcp", "_raop._tcp"])
    }

    @Test func keepsDifferentHostsApart() {
        let table = makeTable(
            makeInstance("TV", host: "tv.local"),
            makeInstance("TV", type: "_ssh._tcp", host: "nas.local")
        )
        #expect(table.deviceCount == 2)
        #expect(Set(table.hosts.map(\.hostName)) == ["tv.local", "nas.local"])
    }

    @Test func sortsServicesByTypeThenName() throws {
        let table = makeTable(
            makeInstance("b", type: "_ssh._tcp", host: "nas.local"),
            makeInstance("z", type: "_http._tcp", host: "nas.local"),
            makeInstance("a", type: "_ssh._tcp", host: "nas.local")
        )
        let services = try #require(table.host(named: "nas.local")).services
        #expect(
            services.map(\.key) == [
                ServiceKey(name: "z", type: "_http._tcp", domain: "local"),
                ServiceKey(name: "a", type: "_ssh._tcp", domain: "local"),
                ServiceKey(name: "b", type: "_ssh._tcp", domain: "local"),
            ]
        )
    }

    // MARK: Addresses

    @Test func mergesAddressesIPv4NumericallyFirstThenIPv6() throws {
        let table = makeTable(
            makeInstance("TV", host: "tv.local", ipProtocol: .ipv4, addresses: ["10.0.0.10", "192.168.1.2"]),
            makeInstance("TV", host: "tv.local", ipProtocol: .ipv6, addresses: ["fe80::1%eth0", "2001:db8::1"]),
            makeInstance("TV", host: "tv.local", interface: "wlan0", addresses: ["10.0.0.7", "10.0.0.10"])
        )
        let device = try #require(table.host(named: "tv.local"))
        #expect(device.addresses == ["10.0.0.7", "10.0.0.10", "192.168.1.2", "2001:db8::1", "fe80::1%eth0"])
    }

    @Test func keepsTheInterfaceScopeOfLinkLocalAddresses() throws {
        let table = makeTable(
            makeInstance("TV", host: "tv.local", interface: "eth0", ipProtocol: .ipv6, addresses: ["fe80::1%eth0"]),
            makeInstance("TV", host: "tv.local", interface: "wlan0", ipProtocol: .ipv6, addresses: ["fe80::1%wlan0"])
        )
        #expect(try #require(table.host(named: "tv.local")).addresses == ["fe80::1%eth0", "fe80::1%wlan0"])
    }

    @Test(arguments: [
        ("10.0.0.7", "10.0.0.10", true),
        ("10.0.0.10", "10.0.0.7", false),
        ("9.255.255.255", "10.0.0.0", true),
        ("255.255.255.255", "::1", true),
        ("::1", "0.0.0.0", false),
        ("2001:db8::1", "fe80::1%eth0", true),
    ])
    func ordersAddresses(lhs: String, rhs: String, precedes: Bool) {
        #expect(AddressOrder.precedes(lhs, rhs) == precedes)
    }

    // MARK: Removal

    @Test func keepsAServiceUntilEveryInstanceIsRemoved() throws {
        var table = makeTable(
            makeInstance("TV", host: "tv.local", interface: "eth0", ipProtocol: .ipv4),
            makeInstance("TV", host: "tv.local", interface: "eth0", ipProtocol: .ipv6),
            makeInstance("TV", host: "tv.local", interface: "wlan0", ipProtocol: .ipv4),
            makeInstance("SSH", type: "_ssh._tcp", host: "tv.local")
        )
        table.apply(.serviceRemoved(makeInstanceKey("TV", interface: "eth0", ipProtocol: .ipv4)))
        table.apply(.serviceRemoved(makeInstanceKey("TV", interface: "eth0", ipProtocol: .ipv6)))
        let stillThere = try #require(table.host(named: "tv.local"))
        #expect(stillThere.services.map(\.name) == ["TV", "SSH"])
        #expect(stillThere.interfaces == ["eth0", "wlan0"], "the SSH instance is still on eth0")

        table.apply(.serviceRemoved(makeInstanceKey("TV", interface: "wlan0", ipProtocol: .ipv4)))
        let afterLast = try #require(table.host(named: "tv.local"))
        #expect(afterLast.services.map(\.name) == ["SSH"])
        #expect(afterLast.interfaces == ["eth0"])
    }

    @Test func removesTheDeviceWithItsLastService() {
        var table = makeTable(
            makeInstance("TV", host: "tv.local"),
            makeInstance("SSH", type: "_ssh._tcp", host: "tv.local")
        )
        table.apply(.serviceRemoved(makeInstanceKey("TV")))
        #expect(table.deviceCount == 1)
        table.apply(.serviceRemoved(makeInstanceKey("SSH", type: "_ssh._tcp")))
        #expect(table.deviceCount == 0)
        #expect(table.host(named: "tv.local") == nil)
        #expect(table.hosts.isEmpty)
        #expect(takeChanges(&table) == ["tv.local": false])
    }

    @Test func anInstanceResolvedAgainIsOneRowThatOneRemovalTakes() {
        // A host's keys are a list, not a set: resolving an instance again must not add its key twice.
        var table = makeTable(
            makeInstance("TV", host: "tv.local", txt: [TXTEntry(key: "v", value: "1")]),
            makeInstance("TV", host: "tv.local", txt: [TXTEntry(key: "v", value: "2")]),
            makeInstance("SSH", type: "_ssh._tcp", host: "tv.local")
        )
        table.apply(.serviceResolved(makeInstance("TV", host: "tv.local", txt: [TXTEntry(key: "v", value: "3")])))
        table.apply(.serviceRemoved(makeInstanceKey("SSH", type: "_ssh._tcp")))
        #expect(table.host(named: "tv.local")?.services.map(\.txt) == [[TXTEntry(key: "v", value: "3")]])
        table.apply(.serviceRemoved(makeInstanceKey("TV")))
        #expect(table.deviceCount == 0)
        #expect(table.host(named: "tv.local") == nil)
        #expect(takeChanges(&table) == ["tv.local": false])
    }

    @Test func ignoresTheRemovalOfAnUnknownInstance() {
        var table = makeTable(makeInstance("TV", host: "tv.local"))
        table.apply(.serviceRemoved(makeInstanceKey("TV", interface: "wlan0")))
        table.apply(.serviceRemoved(makeInstanceKey("Radio")))
        #expect(table.deviceCount == 1)
        #expect(takeChanges(&table).isEmpty)
    }

    @Test func ignoresEventsThatAreNotAboutInstances() {
        var table = makeTable(makeInstance("TV", host: "tv.local"))
        table.apply(.browsingSettled)
        table.apply(.sourceState(.connecting, hostName: "me.local"))
        #expect(table.deviceCount == 1)
        #expect(!table.isResyncing)
        #expect(takeChanges(&table).isEmpty)
    }

    // MARK: TXT, port, display name

    @Test func canonicalizesTXTFirstKeyWinsCaseInsensitivelyThenSortedByKey() throws {
        let table = makeTable(
            makeInstance(
                "TV",
                host: "tv.local",
                txt: [
                    TXTEntry("model", "X"), TXTEntry("Deviceid", "1"), TXTEntry("MODEL", "Y"), TXTEntry("bare", nil),
                    TXTEntry("deviceid", "2"), TXTEntry("", "ignored"), TXTEntry("bare", "late"),
                ]
            )
        )
        let txt = try #require(table.host(named: "tv.local")).services[0].txt
        #expect(txt == [TXTEntry("Deviceid", "1"), TXTEntry("bare", nil), TXTEntry("model", "X")])
    }

    @Test func ignoresTheOrderAResponderPublishesTXTIn() {
        let forwards = makeTable(makeInstance("TV", host: "tv.local", txt: [TXTEntry("a", "1"), TXTEntry("b", "2")]))
        let backwards = makeTable(makeInstance("TV", host: "tv.local", txt: [TXTEntry("b", "2"), TXTEntry("a", "1")]))
        #expect(forwards.host(named: "tv.local") == backwards.host(named: "tv.local"))
    }

    @Test func takesPortAndTXTFromTheMostRecentlyResolvedInstance() throws {
        var table = makeTable(
            makeInstance("TV", host: "tv.local", ipProtocol: .ipv4, port: 80, txt: [TXTEntry("v", "1")]),
            makeInstance("TV", host: "tv.local", ipProtocol: .ipv6, port: 8080, txt: [TXTEntry("v", "2")])
        )
        var service = try #require(table.host(named: "tv.local")).services[0]
        #expect(service.port == 8080)
        #expect(service.txt == [TXTEntry("v", "2")])

        table.apply(.serviceResolved(makeInstance("TV", host: "tv.local", ipProtocol: .ipv4, port: 81)))
        service = try #require(table.host(named: "tv.local")).services[0]
        #expect(service.port == 81)
        #expect(service.txt == [])

        table.apply(.serviceRemoved(makeInstanceKey("TV", ipProtocol: .ipv4)))
        service = try #require(table.host(named: "tv.local")).services[0]
        #expect(service.port == 8080, "the remaining instance's")
        #expect(service.txt == [TXTEntry("v", "2")])
    }

    @Test func namesTheDeviceAfterTheInstanceNameMostServicesShare() throws {
        let table = makeTable(
            // One service seen four times counts once.
            makeInstance("Printer", type: "_ipp._tcp", host: "office.local", interface: "eth0", ipProtocol: .ipv4),
            makeInstance("Printer", type: "_ipp._tcp", host: "office.local", interface: "eth0", ipProtocol: .ipv6),
            makeInstance("Printer", type: "_ipp._tcp", host: "office.local", interface: "wlan0", ipProtocol: .ipv4),
            makeInstance("Printer", type: "_ipp._tcp", host: "office.local", interface: "wlan0", ipProtocol: .ipv6),
            makeInstance("Office", type: "_http._tcp", host: "office.local"),
            makeInstance("Office", type: "_ssh._tcp", host: "office.local")
        )
        #expect(try #require(table.host(named: "office.local")).displayName == "Office")
    }

    @Test func breaksDisplayNameTiesWithTheSmallestName() throws {
        let table = makeTable(
            makeInstance("Kitchen", type: "_http._tcp", host: "pi.local"),
            makeInstance("Attic", type: "_ssh._tcp", host: "pi.local"),
            makeInstance("Lounge", type: "_smb._tcp", host: "pi.local")
        )
        #expect(try #require(table.host(named: "pi.local")).displayName == "Attic")
    }

    @Test(arguments: [("tv.local", "tv"), ("tv", "tv"), ("", "")])
    func fallsBackToTheFirstLabelOfTheHostName(hostName: String, displayName: String) {
        #expect(MDNSHostTable.displayName(hostName: hostName, services: []) == displayName)
    }

    // MARK: Host name changes

    @Test func movesAnInstanceReResolvedUnderAnotherHostName() throws {
        var table = makeTable(
            makeInstance("TV", host: "old.local"),
            makeInstance("SSH", type: "_ssh._tcp", host: "old.local")
        )
        table.apply(.serviceResolved(makeInstance("TV", host: "new.local")))
        #expect(try #require(table.host(named: "old.local")).services.map(\.name) == ["SSH"])
        #expect(try #require(table.host(named: "new.local")).services.map(\.name) == ["TV"])
        #expect(takeChanges(&table) == ["old.local": true, "new.local": true])

        table.apply(.serviceResolved(makeInstance("SSH", type: "_ssh._tcp", host: "new.local")))
        #expect(table.host(named: "old.local") == nil)
        #expect(table.deviceCount == 1)
        #expect(takeChanges(&table) == ["old.local": false, "new.local": true])
    }

    // MARK: Resync

    @Test func resyncKeepsReResolvedInstancesAndRemovesTheOthers() throws {
        var table = makeTable(
            makeInstance("TV", host: "tv.local", interface: "eth0"),
            makeInstance("TV", host: "tv.local", interface: "wlan0"),
            makeInstance("NAS", type: "_smb._tcp", host: "nas.local")
        )
        table.beginResync()
        #expect(table.isResyncing)
        table.apply(.serviceResolved(makeInstance("TV", host: "tv.local", interface: "eth0")))
        table.apply(.serviceResolved(makeInstance("Pi", type: "_ssh._tcp", host: "pi.local")))
        _ = table.takeChangedHosts().changes
        #expect(table.deviceCount == 3, "nothing is removed before the resync finishes")

        table.finishResync()
        #expect(!table.isResyncing)
        #expect(try #require(table.host(named: "tv.local")).interfaces == ["eth0"])
        #expect(table.host(named: "nas.local") == nil)
        #expect(table.host(named: "pi.local") != nil, "found during the resync")
        #expect(takeChanges(&table) == ["tv.local": true, "nas.local": false])
    }

    @Test func aRemovalDuringAResyncIsFinal() {
        var table = makeTable(makeInstance("TV", host: "tv.local"))
        table.beginResync()
        table.apply(.serviceRemoved(makeInstanceKey("TV")))
        table.apply(.serviceResolved(makeInstance("TV", host: "tv.local", interface: "wlan0")))
        table.finishResync()
        #expect(table.host(named: "tv.local")?.interfaces == ["wlan0"])
    }

    @Test func removeAllForgetsEveryDeviceAndEndsTheResync() {
        var table = makeTable(makeInstance("TV", host: "tv.local"), makeInstance("NAS", host: "nas.local"))
        table.beginResync()
        table.removeAll()
        #expect(table.deviceCount == 0)
        #expect(table.hosts.isEmpty)
        #expect(!table.isResyncing)
        #expect(takeChanges(&table) == ["tv.local": false, "nas.local": false])
    }

    // MARK: Change tracking

    @Test func reportsExactlyTheHostsTouchedSinceTheLastCall() {
        var table = makeTable(
            makeInstance("TV", host: "tv.local"),
            makeInstance("NAS", host: "nas.local"),
            makeInstance("Pi", host: "pi.local")
        )
        #expect(takeChanges(&table).isEmpty)

        table.apply(.serviceResolved(makeInstance("TV", host: "tv.local", port: 8080)))
        table.apply(.serviceRemoved(makeInstanceKey("NAS")))
        table.apply(.serviceResolved(makeInstance("Cam", host: "cam.local")))
        #expect(takeChanges(&table) == ["tv.local": true, "nas.local": false, "cam.local": true])
        #expect(takeChanges(&table).isEmpty, "taken")
    }

    @Test func reportsChangedHostsInOrderOfHostName() {
        var table = MDNSHostTable()
        for host in ["c.local", "a.local", "b.local"] { table.apply(.serviceResolved(makeInstance(host, host: host))) }
        #expect(table.takeChangedHosts().changes.map(\.hostName) == ["a.local", "b.local", "c.local"])
    }
}
