// The mDNS host table through a link that goes down and comes back: what Avahi withdrew with the link is kept, what it
// reports again is confirmed, and the rest goes when the withdrawal is finished.

import Discovery
import PeerScanModel
import Testing

@testable import PeerScanCore

private let tvOnEth0 = makeInstance("TV", host: "tv.local", interface: "eth0", addresses: ["10.0.0.7"])
private let tvOnWlan0 = makeInstance("TV", host: "tv.local", interface: "wlan0", addresses: ["10.1.0.7"])
private let nasOnEth0 = makeInstance("NAS", type: "_smb._tcp", host: "nas.local", addresses: ["10.0.0.8"])

private func record(_ address: String, host: String = "tv.local", interface: String = "eth0") -> HostAddress {
    HostAddress(hostName: host, address: address, interface: interface, ipProtocol: .ipv4)
}

/// A table with the TV (on eth0 and wlan0, an extra address record on eth0) and the NAS (eth0), reported.
private func tableWithTwoDevices() -> MDNSHostTable {
    var table = MDNSHostTable()
    for instance in [tvOnEth0, tvOnWlan0, nasOnEth0] { table.apply(.serviceResolved(instance)) }
    table.apply(.addressAdded(record("10.0.0.70")))
    _ = table.takeChangedHosts()
    return table
}

/// Avahi withdraws eth0 as it does when the link goes down: every row and address record learnt there, one by one.
private func withdrawEth0(_ table: inout MDNSHostTable) {
    table.apply(.interfaceWithdrawn("eth0"))
    table.apply(.addressRemoved(record("10.0.0.70")))
    table.apply(.serviceRemoved(tvOnEth0.key))
    table.apply(.serviceRemoved(nasOnEth0.key))
}

/// The host names reported by one take, with whether each still has a device.
private func take(_ table: inout MDNSHostTable) -> [String: Bool] {
    Dictionary(uniqueKeysWithValues: table.takeChangedHosts().changes.map { ($0.hostName, $0.host != nil) })
}

@Suite struct MDNSHostTableWithdrawalTests {
    @Test func aWithdrawnInterfaceKeepsItsDevicesAsTheyWere() {
        var table = tableWithTwoDevices()
        let before = table.hosts.sorted { $0.hostName < $1.hostName }
        withdrawEth0(&table)
        #expect(take(&table).isEmpty, "nothing changed")
        #expect(table.hosts.sorted { $0.hostName < $1.hostName } == before)
    }

    @Test func whatIsReportedAgainWhenTheLinkIsBackStaysAndTheRestGoesAtTheDeadline() throws {
        var table = tableWithTwoDevices()
        withdrawEth0(&table)
        table.apply(.interfaceReturned("eth0"))
        table.apply(.serviceFound(tvOnEth0.key))
        table.apply(.serviceResolved(tvOnEth0))
        table.apply(.addressAdded(record("10.0.0.70")))
        #expect(take(&table) == ["tv.local": true], "reported again, and unchanged")
        #expect(table.finishWithdrawal(of: "eth0").devices == 1, "the NAS was not reported again")
        #expect(take(&table) == ["nas.local": false])
        let tv = try #require(table.host(named: "tv.local"))
        #expect(tv.addresses == ["10.0.0.7", "10.0.0.70", "10.1.0.7"])
        #expect(tv.interfaces == ["eth0", "wlan0"])
    }

    @Test func aLinkThatStaysDownLosesWhatWasLearntThereAndOnlyThat() throws {
        var table = tableWithTwoDevices()
        withdrawEth0(&table)
        #expect(table.finishWithdrawal(of: "eth0").devices == 2)
        #expect(take(&table) == ["tv.local": true, "nas.local": false])
        let tv = try #require(table.host(named: "tv.local"))
        #expect(tv.interfaces == ["wlan0"], "still seen on wlan0")
        #expect(tv.addresses == ["10.1.0.7"])
    }

    @Test func anAddressRecordNotReportedAgainGoesAtTheDeadline() throws {
        var table = tableWithTwoDevices()
        withdrawEth0(&table)
        table.apply(.interfaceReturned("eth0"))
        table.apply(.serviceResolved(tvOnEth0))
        table.apply(.serviceResolved(nasOnEth0))
        _ = take(&table)
        table.finishWithdrawal(of: "eth0")
        #expect(take(&table) == ["tv.local": true])
        #expect(try #require(table.host(named: "tv.local")).addresses == ["10.0.0.7", "10.1.0.7"])
    }

    @Test func aRecordNotReportedAgainWaitsForTheLastRound() throws {
        var table = tableWithTwoDevices()
        withdrawEth0(&table)
        table.apply(.interfaceReturned("eth0"))
        table.apply(.serviceFound(tvOnEth0.key))
        table.apply(.serviceFound(nasOnEth0.key))
        table.apply(.serviceResolved(tvOnEth0))  // the TV answers over eth0 with 10.0.0.7 only, for now
        _ = take(&table)
        _ = table.finishWithdrawal(of: "eth0", final: false)  // busy: the rows came back
        #expect(table.finishWithdrawal(of: "eth0", final: false) == (devices: 0, waiting: 1), "the record waits")
        #expect(try #require(table.host(named: "tv.local")).addresses == ["10.0.0.7", "10.0.0.70", "10.1.0.7"])
        #expect(table.finishWithdrawal(of: "eth0", final: true) == (devices: 1, waiting: 0), "the last round")
        #expect(try #require(table.host(named: "tv.local")).addresses == ["10.0.0.7", "10.1.0.7"])
    }

    @Test func theRowsWaitUntilTheDaemonHasReportedFromTheLinkAgain() {
        var table = tableWithTwoDevices()
        withdrawEth0(&table)
        table.apply(.interfaceReturned("eth0"))
        _ = table.finishWithdrawal(of: "eth0", final: false)  // busy: the removals
        #expect(table.finishWithdrawal(of: "eth0", final: false).devices == 0, "quiet, but nothing came back yet")
        #expect(table.host(named: "nas.local") != nil)
    }

    @Test func aRoundInWhichSomethingCameBackRemovesNothing() {
        var table = tableWithTwoDevices()
        withdrawEth0(&table)
        table.apply(.interfaceReturned("eth0"))
        table.apply(.serviceFound(tvOnEth0.key))  // the daemon is learning the link again
        #expect(table.finishWithdrawal(of: "eth0", final: false) == (devices: 0, waiting: 2), "the NAS and a record")
        #expect(table.host(named: "nas.local") != nil)
        #expect(table.finishWithdrawal(of: "eth0", final: false).devices == 1, "a quiet round: the NAS goes")
        #expect(take(&table)["nas.local"] == false)
    }

    @Test func aRecordFlushedWhileTheLinkIsLearntAgainIsKeptUntilTheWithdrawalIsFinished() throws {
        var table = tableWithTwoDevices()
        withdrawEth0(&table)
        table.apply(.interfaceReturned("eth0"))
        table.apply(.serviceResolved(tvOnEth0))
        table.apply(.serviceResolved(nasOnEth0))
        table.apply(.addressAdded(record("10.0.0.70")))
        _ = take(&table)
        table.apply(.addressRemoved(record("10.0.0.70")))  // flushed: a response carried the TV's other record only
        #expect(take(&table).isEmpty)
        table.apply(.addressAdded(record("10.0.0.70")))  // asked for again
        #expect(table.finishWithdrawal(of: "eth0", final: false).waiting == 0)
        #expect(try #require(table.host(named: "tv.local")).addresses.contains("10.0.0.70"))
        table.apply(.addressRemoved(record("10.0.0.70")))
        #expect(take(&table) == ["tv.local": true], "the withdrawal is over: a removal is a removal again")
    }

    @Test func aRemovalAfterTheLinkIsBackIsADeparture() {
        var table = tableWithTwoDevices()
        withdrawEth0(&table)
        table.apply(.interfaceReturned("eth0"))
        table.apply(.serviceResolved(nasOnEth0))
        _ = take(&table)
        table.apply(.serviceRemoved(nasOnEth0.key))
        #expect(take(&table) == ["nas.local": false])
    }

    @Test func removalsOnOtherInterfacesAreDepartures() {
        var table = tableWithTwoDevices()
        table.apply(.interfaceWithdrawn("eth0"))
        table.apply(.serviceRemoved(tvOnWlan0.key))
        #expect(take(&table) == ["tv.local": true])
        #expect(table.host(named: "tv.local")?.interfaces == ["eth0"])
    }

    @Test func anOutageOfTheDaemonTakesOverTheWithdrawal() {
        var table = tableWithTwoDevices()
        withdrawEth0(&table)
        table.beginResync()
        table.apply(.serviceResolved(tvOnWlan0))
        table.finishResync()
        #expect(take(&table) == ["tv.local": true, "nas.local": false])
        #expect(table.finishWithdrawal(of: "eth0").devices == 0, "nothing left to finish")
    }

    @Test func scanningOffForgetsTheWithdrawal() {
        var table = tableWithTwoDevices()
        withdrawEth0(&table)
        table.removeAll()
        table.apply(.serviceResolved(nasOnEth0))
        table.apply(.serviceRemoved(nasOnEth0.key))
        #expect(table.host(named: "nas.local") == nil, "eth0 is no longer withdrawn: a removal is final")
    }

    @Test func countsTheDevicesLearntOnAnInterface() {
        let table = tableWithTwoDevices()
        #expect(table.deviceCount(on: "eth0") == 2)
        #expect(table.deviceCount(on: "wlan0") == 1)
        #expect(table.deviceCount(on: "eth1") == 0)
    }
}
