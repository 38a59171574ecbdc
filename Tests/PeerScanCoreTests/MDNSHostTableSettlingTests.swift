// Settling: a device is reported once the rows it waits on have come (or gone), within one settle window.

import Discovery
import NetworkInterfaces
import PeerScanModel
import Testing

@testable import PeerScanCore

private let tvV4 = makeInstance("TV", host: "tv.local", ipProtocol: .ipv4, addresses: ["10.0.0.7"])
private let tvV6 = makeInstance("TV", host: "tv.local", ipProtocol: .ipv6, addresses: ["fd00::7"])

/// What one take reports: host → its addresses (`nil` for a device that is gone), and the window asked for.
private func take(_ table: inout MDNSHostTable, expired: Int? = nil) -> (reported: [String: [String]?], window: Int?) {
    let (changes, settle) = table.takeChangedHosts(windowExpired: expired)
    var reported: [String: [String]?] = [:]
    for change in changes { reported[change.hostName] = .some(change.host?.addresses) }
    return (reported, settle?.window)
}

/// A settling table with tv.local reported with both its rows.
private func tableWithTelevision() -> MDNSHostTable {
    var table = MDNSHostTable(settles: true)
    table.apply(.serviceResolved(tvV4))
    table.apply(.serviceResolved(tvV6))
    _ = table.takeChangedHosts()
    return table
}

@Suite struct MDNSHostTableSettlingTests {
    @Test func aNewDeviceWaitsForTheRowsOfItsServiceStillResolvingThenComesWhole() {
        var table = MDNSHostTable(settles: true)
        table.apply(.serviceFound(tvV4.key))
        table.apply(.serviceFound(tvV6.key))
        table.apply(.serviceResolved(tvV6))
        let first = take(&table)
        #expect(first.reported.isEmpty, "held: the IPv4 row of its service is still resolving")
        #expect(first.window == 1)
        table.apply(.serviceResolved(tvV4))
        let second = take(&table)
        #expect(second.reported == ["tv.local": ["10.0.0.7", "fd00::7"]], "once, with both addresses")
        #expect(second.window == nil)
    }

    @Test func aRowThatNeverResolvesHoldsTheDeviceOnlyUntilItsWindowExpires() {
        var table = MDNSHostTable(settles: true)
        table.apply(.serviceFound(tvV4.key))
        table.apply(.serviceResolved(tvV6))
        let held = take(&table)
        #expect(held.reported.isEmpty)
        #expect(take(&table).reported.isEmpty, "still held, and no second window asked for")
        #expect(take(&table, expired: 0).reported.isEmpty, "an older window releases nothing")
        #expect(take(&table, expired: held.window).reported == ["tv.local": ["fd00::7"]])
    }

    @Test func aDeviceWaitingOnNothingIsReportedAtOnce() {
        var table = MDNSHostTable(settles: true)
        table.apply(.serviceFound(makeInstanceKey("Radio", ipProtocol: .ipv6)))  // another instance name: unrelated
        table.apply(.serviceResolved(tvV4))
        let result = take(&table)
        #expect(result.reported == ["tv.local": ["10.0.0.7"]])
        #expect(result.window == nil)
    }

    @Test func anotherServiceOfTheSameInstanceNameIsWaitedFor() {
        var table = MDNSHostTable(settles: true)
        let ssh = makeInstance("TV", type: "_ssh._tcp", host: "tv.local", addresses: ["10.0.0.7"])
        table.apply(.serviceFound(ssh.key))
        table.apply(.serviceResolved(tvV4))
        #expect(take(&table).reported.isEmpty)
        table.apply(.serviceResolved(ssh))
        let device = table.takeChangedHosts().changes.first?.host
        #expect(device?.services.map(\.type) == ["_http._tcp", "_ssh._tcp"])
    }

    @Test func aPendingRowThatIsRemovedReleasesTheDeviceAtTheNextTake() {
        var table = MDNSHostTable(settles: true)
        table.apply(.serviceFound(tvV4.key))
        table.apply(.serviceResolved(tvV6))
        #expect(take(&table).reported.isEmpty)
        table.apply(.serviceRemoved(tvV4.key))
        #expect(take(&table).reported == ["tv.local": ["fd00::7"]])
    }

    @Test func aRowWhoseResolveFailedIsWaitedForNoLonger() {
        var table = MDNSHostTable(settles: true)
        table.apply(.serviceFound(tvV4.key))
        table.apply(.serviceResolved(tvV6))
        #expect(take(&table).reported.isEmpty)
        table.apply(.resolveFailed(tvV4.key))
        #expect(take(&table).reported == ["tv.local": ["fd00::7"]])
        #expect(table.isSettled)
    }

    @Test func whatTheSourceHadPendingIsForgottenWhenItGoesAway() {
        var table = MDNSHostTable(settles: true)
        table.apply(.serviceFound(makeInstanceKey("Ghost")))
        table.apply(.followingAddresses(hostName: "ghost.local"))
        #expect(!table.isSettled)
        table.sourceWentAway()
        #expect(table.isSettled)
    }

    @Test func aTableThatDoesNotSettleStillKnowsWhatIsPending() {
        var table = MDNSHostTable()
        table.apply(.serviceFound(tvV4.key))
        #expect(!table.isSettled, "the initial browse waits for it even without holding devices")
        table.apply(.serviceResolved(tvV4))
        #expect(table.isSettled)
    }

    @Test func aWithdrawnServiceGoesInOneChangeOnceAllItsRowsAreGone() {
        var table = tableWithTelevision()
        table.apply(.serviceRemoved(tvV6.key))
        let first = take(&table)
        #expect(first.reported.isEmpty, "held: the IPv4 row of the same service is going too")
        #expect(first.window != nil)
        table.apply(.serviceRemoved(tvV4.key))
        #expect(take(&table).reported == ["tv.local": nil], "one delete, no address-gone update before it")
    }

    @Test func aRowThatStaysIsReportedGoneWhenTheWindowExpires() {
        var table = tableWithTelevision()
        table.apply(.serviceRemoved(tvV6.key))
        let held = take(&table)
        #expect(take(&table, expired: held.window).reported == ["tv.local": ["10.0.0.7"]])
    }

    @Test func aDeviceThatLeavesWithTwoServicesOfOneNameGoesInOneChange() {
        var table = MDNSHostTable(settles: true)
        let raop = makeInstance("TV", type: "_raop._tcp", host: "tv.local", addresses: ["10.0.0.7"])
        table.apply(.serviceResolved(tvV4))
        table.apply(.serviceResolved(raop))
        _ = table.takeChangedHosts()
        table.apply(.serviceRemoved(raop.key))
        #expect(take(&table).reported.isEmpty, "held: the TV's other service may be going too")
        table.apply(.serviceRemoved(tvV4.key))
        #expect(take(&table).reported == ["tv.local": nil])
    }

    @Test func losingAServiceWithNoRowOfItsNameLeftIsReportedAtOnce() {
        var table = MDNSHostTable(settles: true)
        let ssh = makeInstance("TV shell", type: "_ssh._tcp", host: "tv.local", addresses: ["10.0.0.7"])
        table.apply(.serviceResolved(tvV4))
        table.apply(.serviceResolved(ssh))
        _ = table.takeChangedHosts()
        table.apply(.serviceRemoved(ssh.key))
        let result = take(&table)
        #expect(result.reported == ["tv.local": ["10.0.0.7"]])
        #expect(result.window == nil)
    }

    @Test func everythingHeldGoesWhenScanningIsSwitchedOff() {
        var table = tableWithTelevision()
        table.apply(.serviceRemoved(tvV6.key))
        #expect(take(&table).reported.isEmpty)
        table.removeAll()
        #expect(take(&table).reported == ["tv.local": nil])
    }

    @Test func aTableThatDoesNotSettleReportsEveryPiece() {
        var table = MDNSHostTable()
        table.apply(.serviceFound(tvV4.key))
        table.apply(.serviceResolved(tvV6))
        #expect(take(&table).reported == ["tv.local": ["fd00::7"]])
        table.apply(.serviceRemoved(tvV6.key))
        #expect(take(&table).reported == ["tv.local": nil])
    }

    @Test func windowsAreAskedForOneAtATime() {
        var table = MDNSHostTable(settles: true)
        table.apply(.serviceFound(tvV4.key))
        table.apply(.serviceResolved(tvV6))
        #expect(take(&table).window == 1)
        let radio = makeInstance("Radio", host: "radio.local", ipProtocol: .ipv6)
        table.apply(.serviceFound(makeInstanceKey("Radio", ipProtocol: .ipv4)))
        table.apply(.serviceResolved(radio))
        #expect(take(&table).window == nil, "held in the open window")
        let released = take(&table, expired: 1)
        #expect(Set(released.reported.keys) == ["tv.local", "radio.local"])
        table.apply(.serviceFound(makeInstanceKey("NAS", ipProtocol: .ipv4)))
        table.apply(.serviceResolved(makeInstance("NAS", host: "nas.local", ipProtocol: .ipv6)))
        #expect(take(&table).window == 2, "a new window once the last one expired")
    }
}

private func record(_ address: String, host: String = "tv.local", ipProtocol: IPProtocol = .ipv4) -> HostAddress {
    HostAddress(hostName: host, address: address, interface: "eth0", ipProtocol: ipProtocol)
}

@Suite struct MDNSHostTableAddressTests {
    @Test func aDeviceHasEveryAddressItsHostsRecordsGiveAsWellAsItsRows() {
        var table = MDNSHostTable()
        table.apply(.serviceResolved(tvV4))
        table.apply(.addressAdded(record("10.0.0.8")))
        table.apply(.addressAdded(record("10.0.0.8", ipProtocol: .ipv6)))  // the same record over IPv6
        table.apply(.addressAdded(record("10.0.0.7")))
        #expect(table.host(named: "tv.local")?.addresses == ["10.0.0.7", "10.0.0.8"])
        table.apply(.addressRemoved(record("10.0.0.8")))
        #expect(table.host(named: "tv.local")?.addresses == ["10.0.0.7", "10.0.0.8"], "still seen over IPv6")
        table.apply(.addressRemoved(record("10.0.0.8", ipProtocol: .ipv6)))
        table.apply(.addressRemoved(record("10.0.0.7")))
        #expect(table.host(named: "tv.local")?.addresses == ["10.0.0.7"], "the row's own address stays")
    }

    @Test func recordsOfAHostNoRowPointsToAreIgnoredAndGoWithItsLastRow() {
        var table = MDNSHostTable()
        table.apply(.addressAdded(record("10.0.0.9", host: "ghost.local")))
        #expect(table.host(named: "ghost.local") == nil)
        table.apply(.serviceResolved(tvV4))
        table.apply(.addressAdded(record("10.0.0.8")))
        table.apply(.serviceRemoved(tvV4.key))
        table.apply(.serviceResolved(tvV4))
        #expect(table.host(named: "tv.local")?.addresses == ["10.0.0.7"], "followed anew")
    }

    @Test func aNewDeviceWaitsUntilItsHostsAddressesAreKnown() {
        var table = MDNSHostTable(settles: true)
        table.apply(.followingAddresses(hostName: "TV.local."))
        table.apply(.serviceResolved(tvV4))
        #expect(take(&table).reported.isEmpty, "held: its address records are coming")
        table.apply(.addressAdded(record("10.0.0.7")))
        table.apply(.addressAdded(record("10.0.0.8")))
        table.apply(.addressesKnown(hostName: "tv.local"))
        #expect(take(&table).reported == ["tv.local": ["10.0.0.7", "10.0.0.8"]], "once, with every address")
        #expect(table.isSettled)
    }

    @Test func anAddressAddedLaterIsOneUpdateAndOneRemovedIsTooAfterItsWindow() {
        var table = MDNSHostTable(settles: true)
        table.apply(.serviceResolved(tvV4))
        _ = table.takeChangedHosts()
        table.apply(.addressAdded(record("10.0.0.8")))
        #expect(take(&table).reported == ["tv.local": ["10.0.0.7", "10.0.0.8"]])
        table.apply(.addressRemoved(record("10.0.0.8")))
        let held = take(&table)
        #expect(held.reported.isEmpty, "held: its rows may be going too")
        #expect(take(&table, expired: held.window).reported == ["tv.local": ["10.0.0.7"]])
    }

    @Test func aDeviceThatLeavesLosingAddressesFirstIsOneDelete() {
        var table = MDNSHostTable(settles: true)
        table.apply(.serviceResolved(tvV4))
        table.apply(.addressAdded(record("10.0.0.8")))
        _ = table.takeChangedHosts()
        table.apply(.addressRemoved(record("10.0.0.8")))
        #expect(take(&table).reported.isEmpty)
        table.apply(.serviceRemoved(tvV4.key))
        #expect(take(&table).reported == ["tv.local": nil])
    }

    @Test func aResyncDropsTheRecordsNotReportedAgainOnlyWhenItsAddressesResyncEnds() {
        var table = MDNSHostTable()
        table.apply(.serviceResolved(tvV4))
        table.apply(.addressAdded(record("10.0.0.8")))
        table.apply(.addressAdded(record("10.0.0.9")))
        table.beginResync()
        table.apply(.serviceFound(tvV4.key))
        table.finishResyncOfTypesSeenAgain()  // the rows are back (found): the resync of rows is over
        #expect(!table.isResyncing)
        #expect(
            table.host(named: "tv.local")?.addresses == ["10.0.0.7", "10.0.0.8", "10.0.0.9"],
            "the records are followed again only once the rows resolve: kept meanwhile"
        )
        table.apply(.serviceResolved(tvV4))
        table.apply(.addressAdded(record("10.0.0.9")))
        table.finishAddressResync()
        #expect(table.host(named: "tv.local")?.addresses == ["10.0.0.7", "10.0.0.9"])
    }

    @Test func aRecordFlushedAndReportedAgainDuringTheAddressResyncNeverLeaves() {
        var table = MDNSHostTable()
        table.apply(.serviceResolved(tvV4))
        table.apply(.addressAdded(record("10.0.0.8")))
        table.apply(.addressAdded(record("10.0.0.9")))
        _ = table.takeChangedHosts()
        table.beginResync()
        table.apply(.serviceResolved(tvV4))
        table.finishResync()
        table.apply(.addressAdded(record("10.0.0.8")))
        table.apply(.addressAdded(record("10.0.0.9")))
        _ = take(&table)  // the resync's own report: the device as it was
        table.apply(.addressRemoved(record("10.0.0.9")))  // flushed by a response that carried 10.0.0.8 only
        #expect(take(&table).reported.isEmpty, "no change while its addresses resync")
        table.apply(.addressAdded(record("10.0.0.9")))  // asked for again
        table.finishAddressResync()
        #expect(take(&table).reported.isEmpty, "nothing changed: not one update")
        #expect(table.host(named: "tv.local")?.addresses == ["10.0.0.7", "10.0.0.8", "10.0.0.9"])
    }

    @Test func aRecordRemovedDuringTheAddressResyncAndNotReportedAgainGoesWhenItEnds() {
        var table = MDNSHostTable()
        table.apply(.serviceResolved(tvV4))
        table.apply(.addressAdded(record("10.0.0.8")))
        table.beginResync()
        table.apply(.serviceResolved(tvV4))
        table.finishResync()
        table.apply(.addressAdded(record("10.0.0.8")))
        table.apply(.addressRemoved(record("10.0.0.8")))
        #expect(table.host(named: "tv.local")?.addresses == ["10.0.0.7", "10.0.0.8"], "kept meanwhile")
        table.finishAddressResync()
        #expect(table.host(named: "tv.local")?.addresses == ["10.0.0.7"])
        table.apply(.addressAdded(record("10.0.0.8")))
        table.apply(.addressRemoved(record("10.0.0.8")))
        #expect(table.host(named: "tv.local")?.addresses == ["10.0.0.7"], "after the resync: removed at once")
    }

    // A daemon that comes back to a large LAN asks every host again, which takes it a while, and a host's records
    // come back piecemeal: a record not reported again is dropped only in the last round; an earlier round only tells
    // whether any still waits.
    @Test func recordsNotReportedAgainWaitForTheLastRound() {
        var table = MDNSHostTable()
        let nas = makeInstance("NAS", host: "nas.local", ipProtocol: .ipv4, addresses: ["10.0.0.20"])
        table.apply(.serviceResolved(tvV4))
        table.apply(.serviceResolved(nas))
        table.apply(.addressAdded(record("10.0.0.8")))
        table.apply(.addressAdded(record("10.0.0.21", host: "nas.local")))
        table.apply(.addressAdded(record("10.0.0.22", host: "nas.local")))
        table.beginResync()
        table.apply(.serviceResolved(tvV4))  // the TV answers with 10.0.0.7 only, for now
        table.apply(.serviceResolved(nas))
        table.apply(.addressAdded(record("10.0.0.21", host: "nas.local")))
        _ = take(&table)

        #expect(table.finishAddressResync(final: false) == 2, "10.0.0.8 and 10.0.0.22 still wait")
        #expect(take(&table).reported.isEmpty, "nothing dropped before the last round")
        table.apply(.addressAdded(record("10.0.0.8")))  // the TV's other record, seconds later
        #expect(table.finishAddressResync(final: false) == 1)
        #expect(table.host(named: "tv.local")?.addresses == ["10.0.0.7", "10.0.0.8"])
        #expect(table.finishAddressResync(final: true) == 0)
        #expect(take(&table).reported == ["nas.local": ["10.0.0.20", "10.0.0.21"]], "what never came back goes")
    }

    @Test func theResyncEndsEarlyOnceEveryRecordIsBack() {
        var table = MDNSHostTable()
        table.apply(.serviceResolved(tvV4))
        table.apply(.addressAdded(record("10.0.0.8")))
        table.beginResync()
        table.apply(.addressAdded(record("10.0.0.8")))
        #expect(table.finishAddressResync(final: false) == 0)
        table.apply(.addressRemoved(record("10.0.0.8")))
        #expect(table.host(named: "tv.local")?.addresses == ["10.0.0.7"], "after the resync: removed at once")
    }
}
