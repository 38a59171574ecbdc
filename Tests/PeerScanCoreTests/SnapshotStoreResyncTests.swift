// The store through an outage of the discovery daemon: devices are kept while it is away, those reported again are
// left untouched, and the others go when the source has settled or the grace period is over.

import Diffable
import Discovery
import MonitoringLog
import PeerScanModel
import Testing

@testable import PeerScanCore

/// A running store holding "TV" (tv.local) and "NAS" (nas.local), both on eth0.
private func makeRunningStoreWithTwoDevices() async -> SnapshotStore {
    let store = makeStore()
    await store.apply([.source(.running), .resolved(television), .resolved(nas)])
    return store
}

private let television = makeInstance("TV", host: "tv.local", addresses: ["10.0.0.7"])
private let nas = makeInstance("NAS", type: "_smb._tcp", host: "nas.local", addresses: ["10.0.0.8"])

/// The changeset that only updates the `host` item to show `status`.
private func hostUpdate(_ status: HostStatus) -> ScanChangeset {
    var changes = ScanChangeset()
    changes.itemUpdates = [.init(item: .host(status), at: ItemIndexPath(section: 0, item: 1))]
    return changes
}

/// Takes the store through an outage: the source goes away, comes back and reports tv.local again. Returns the
/// generation of the resync deadline the store asked for.
private func takeThroughAnOutageSeeingOnlyTheTelevisionAgain(_ store: SnapshotStore) async throws -> Int {
    await store.apply([.source(.connecting)])
    let effects = await store.apply([.source(.running), .resolved(television)])
    return try #require(effects.resyncDeadline)
}

@Suite struct SnapshotStoreResyncTests {
    @Test func anOutageKeepsTheDevicesAndTheHostShowsIt() async throws {
        let store = await makeRunningStoreWithTwoDevices()
        let devices = await store.snapshot.devices
        let outcome = try await applyBatch([.source(.connecting)], to: store)
        #expect(outcome.changes == hostUpdate(HostStatus(sourceState: .connecting)))
        #expect(
            outcome.effects == StoreEffects(logs: [LogEntry(.mdnsSourceState, ["state": "connecting", "reason": ""])]),
            "no timer while the daemon is away"
        )
        #expect(await store.snapshot.devices == devices)
        #expect(await store.hostStatus.sourceState == .connecting)
    }

    @Test func theHostShowsWhyTheSourceFailed() async throws {
        let store = await makeRunningStoreWithTwoDevices()
        await store.apply([.source(.failure(reason: "Daemon connection failed"), hostName: "me.local")])
        let status = try #require(await store.snapshot.hostStatus)
        #expect(status.sourceState == .failure(reason: "Daemon connection failed"))
        #expect(status.hostName == "me.local")
        #expect(await store.deviceCount == 2)
    }

    @Test(arguments: [SourceState.connecting, .registering, .collision, .unavailable(reason: "no D-Bus")])
    func comingBackAfterAnOutageAsksForAResyncDeadline(outage: SourceState) async {
        let store = await makeRunningStoreWithTwoDevices()
        let down = await store.apply([.source(outage)])
        #expect(down.resyncDeadline == nil)
        let up = await store.apply([.source(.running)])
        #expect(up.resyncDeadline != nil)
    }

    @Test func comingBackWithoutDevicesAsksForNoDeadline() async {
        let store = makeStore()
        await store.apply([.source(.running)])
        await store.apply([.source(.connecting)])
        #expect(await store.apply([.source(.running)]).resyncDeadline == nil)
    }

    @Test func devicesReportedAgainAreUntouchedAndTheOthersGoWhenBrowsingSettles() async throws {
        let store = await makeRunningStoreWithTwoDevices()
        let running = HostStatus(sourceState: .running)
        await store.apply([.source(.connecting)])

        let back = try await applyBatch([.source(.running), .resolved(television)], to: store)
        #expect(back.changes == hostUpdate(running), "no entry for the device reported again")
        #expect(await store.deviceCount == 2, "nothing is removed before the source settles")

        // As Avahi reports it: each type's browser settles, then all of them.
        let settled = try await applyBatch(
            [.typeSettled(television.key.type), .typeSettled(nas.key.type), .browsingSettled],
            to: store
        )
        var expected = ScanChangeset()
        expected.itemDeletes = [
            .init(id: DeviceID.make(hostName: "nas.local"), from: ItemIndexPath(section: 1, item: 0))
        ]
        #expect(settled.changes == expected)
        #expect(await store.snapshot.devices.map(\.hostName) == ["tv.local"])
    }

    @Test func browsingSettledBeforeTheSourceIsBackRemovesNothing() async throws {
        let store = await makeRunningStoreWithTwoDevices()
        await store.apply([.source(.connecting)])
        let outcome = try await applyBatch([.browsingSettled], to: store)
        #expect(outcome.updates.isEmpty)
        #expect(await store.deviceCount == 2)
    }

    @Test func theDeadlineRemovesTheDevicesNotSeenAgain() async throws {
        let store = await makeRunningStoreWithTwoDevices()
        let generation = try await takeThroughAnOutageSeeingOnlyTheTelevisionAgain(store)

        let wrong = try await applyBatch([.resyncDeadline(generation: generation + 1)], to: store)
        #expect(wrong.updates.isEmpty, "a deadline of another generation is ignored")
        #expect(await store.deviceCount == 2)

        let right = try await applyBatch([.resyncDeadline(generation: generation)], to: store)
        var expected = ScanChangeset()
        expected.itemDeletes = [
            .init(id: DeviceID.make(hostName: "nas.local"), from: ItemIndexPath(section: 1, item: 0))
        ]
        #expect(right.changes == expected)
    }

    @Test func theDeadlineOfAnEarlierOutageIsIgnored() async throws {
        let store = await makeRunningStoreWithTwoDevices()
        let first = try await takeThroughAnOutageSeeingOnlyTheTelevisionAgain(store)
        await store.apply([.browsingSettled])
        await store.apply([.resolved(nas)])

        let second = try await takeThroughAnOutageSeeingOnlyTheTelevisionAgain(store)
        #expect(second != first)
        let stale = try await applyBatch([.resyncDeadline(generation: first)], to: store)
        #expect(stale.updates.isEmpty)
        #expect(await store.deviceCount == 2)

        await store.apply([.resyncDeadline(generation: second)])
        #expect(await store.snapshot.devices.map(\.hostName) == ["tv.local"])
    }

    @Test func addressRecordsOfAHostThatDoesNotAnswerAreKeptForMoreRoundsUpToTheLast() async throws {
        let store = await makeRunningStoreWithTwoDevices()
        let record = HostAddress(hostName: "nas.local", address: "10.0.0.9", interface: "eth0", ipProtocol: .ipv4)
        await store.apply([.discovery(.mdns(.addressAdded(record)))])
        await store.apply([.source(.connecting)])
        // The NAS's row is seen again (its service is there), but the NAS has not answered for its addresses yet.
        let back = await store.apply([
            .source(.running), .resolved(television), .discovery(.mdns(.serviceFound(nas.key))),
        ])
        var generation = try #require(back.resyncDeadline)
        for round in 1..<ResyncSchedule.maximumAddressResyncRounds {
            let outcome = try await applyBatch([.resyncDeadline(generation: generation)], to: store)
            #expect(outcome.updates.isEmpty, "round \(round): the NAS has not answered, its record stays")
            generation = try #require(outcome.effects.resyncDeadline, "round \(round) asks for another")
            #expect(await store.snapshot.device(hostName: "nas.local")?.addresses == ["10.0.0.8", "10.0.0.9"])
        }
        let last = try await applyBatch([.resyncDeadline(generation: generation)], to: store)
        #expect(last.effects.resyncDeadline == nil, "the last round")
        #expect(await store.snapshot.device(hostName: "nas.local")?.addresses == ["10.0.0.8"])
    }

    @Test func aRecordFlushedInTheSecondRoundAfterEveryRecordCameBackIsKeptUntilItIsBack() async throws {
        let store = await makeRunningStoreWithTwoDevices()
        let record = HostAddress(hostName: "nas.local", address: "10.0.0.9", interface: "eth0", ipProtocol: .ipv4)
        await store.apply([.discovery(.mdns(.addressAdded(record)))])
        await store.apply([.source(.connecting)])
        let back = await store.apply([
            .source(.running), .resolved(television), .resolved(nas), .discovery(.mdns(.addressAdded(record))),
        ])
        let first = try await applyBatch([.resyncDeadline(generation: try #require(back.resyncDeadline))], to: store)
        var generation = try #require(first.effects.resyncDeadline, "every record is back, and a second round follows")
        // The daemon, its cache filled again, flushes the record, and has it again seconds later.
        let flushed = try await applyBatch([.discovery(.mdns(.addressRemoved(record)))], to: store)
        #expect(flushed.updates.isEmpty)
        let second = try await applyBatch([.resyncDeadline(generation: generation)], to: store)
        #expect(second.updates.isEmpty)
        generation = try #require(second.effects.resyncDeadline, "the record is not back yet: one more round")
        let again = try await applyBatch([.discovery(.mdns(.addressAdded(record)))], to: store)
        #expect(again.updates.isEmpty)
        let third = try await applyBatch([.resyncDeadline(generation: generation)], to: store)
        #expect(third.updates.isEmpty && third.effects.resyncDeadline == nil)
        #expect(await store.snapshot.device(hostName: "nas.local")?.addresses == ["10.0.0.8", "10.0.0.9"])
    }

    @Test func theDeadlineIsIgnoredWhileTheSourceIsDownAgain() async throws {
        let store = await makeRunningStoreWithTwoDevices()
        let generation = try await takeThroughAnOutageSeeingOnlyTheTelevisionAgain(store)
        await store.apply([.source(.connecting)])
        let outcome = try await applyBatch([.resyncDeadline(generation: generation)], to: store)
        #expect(outcome.updates.isEmpty)
        #expect(await store.deviceCount == 2)
    }

    // A second outage starts over: the daemon that comes back knows nothing of what the previous one reported, so a
    // device confirmed between the two outages and gone in the second must still be removed.
    @Test func aSecondOutageDuringAResyncStartsItOver() async throws {
        let store = await makeRunningStoreWithTwoDevices()
        await store.apply([.source(.connecting)])
        await store.apply([.source(.running), .resolved(television), .resolved(nas)])
        await store.apply([.source(.connecting)])
        await store.apply([.source(.running), .resolved(television)])
        await store.apply([.typeSettled(nas.key.type), .browsingSettled])
        #expect(await store.snapshot.devices.map(\.hostName) == ["tv.local"])
    }

    // A daemon that just started has an empty cache: its browsers can report all-for-now before the service types
    // are even known. Nothing of a type not seen again is removed then; the type's own settling (or the deadline)
    // decides.
    @Test func settlingBeforeATypeIsSeenAgainKeepsItsDevices() async throws {
        let store = await makeRunningStoreWithTwoDevices()
        await store.apply([.source(.connecting)])
        await store.apply([.source(.running)])
        let early = try await applyBatch([.browsingSettled], to: store)
        #expect(early.updates.isEmpty)
        #expect(await store.deviceCount == 2)

        await store.apply([.resolved(television), .typeSettled(television.key.type), .browsingSettled])
        #expect(await store.deviceCount == 2, "the NAS's type has not been browsed again yet")
        await store.apply([.typeSettled(nas.key.type), .browsingSettled])
        #expect(await store.snapshot.devices.map(\.hostName) == ["tv.local"])
    }

    @Test func switchingScanningOffEndsTheResync() async throws {
        let store = await makeRunningStoreWithTwoDevices()
        await store.apply([.source(.connecting)])
        await store.apply([.setScanning(false)])
        await store.apply([.setScanning(true)])
        await store.apply([.resolved(nas)])
        #expect(await store.apply([.source(.running)]).resyncDeadline == nil)
        await store.apply([.browsingSettled])
        #expect(await store.snapshot.devices.map(\.hostName) == ["nas.local"])
    }
}

// A link that goes down and comes back: Avahi withdraws everything learnt on it, the store keeps it, and only what is
// not reported again within the grace period after the link is back goes.
@Suite struct SnapshotStoreWithdrawalTests {
    /// Avahi withdrawing eth0: both devices' rows removed, as when its link goes down.
    private let withdrawal: [StoreInput] = [
        .discovery(.mdns(.interfaceWithdrawn("eth0"))), .removed(television.key), .removed(nas.key),
    ]

    @Test func aWithdrawnInterfaceChangesNothingAndAsksForADeadline() async throws {
        let store = await makeRunningStoreWithTwoDevices()
        let outcome = try await applyBatch(withdrawal, to: store)
        #expect(outcome.updates.isEmpty, "no changeset")
        let generation = try #require(outcome.effects.withdrawalDeadlines["eth0"])
        #expect(
            outcome.effects
                == StoreEffects(
                    withdrawalDeadlines: ["eth0": generation],
                    logs: [LogEntry(.interfaceWithdrawn, ["interface": "eth0", "devices": "2"])]
                )
        )
        #expect(await store.deviceCount == 2)
    }

    @Test func theLinkBackAndItsDevicesReportedAgainIsNoChangeset() async throws {
        let store = await makeRunningStoreWithTwoDevices()
        let withdrawn = try #require(await store.apply(withdrawal).withdrawalDeadlines["eth0"])
        let back = try await applyBatch(
            [.discovery(.mdns(.interfaceReturned("eth0"))), .resolved(television), .resolved(nas)],
            to: store
        )
        #expect(back.updates.isEmpty)
        let returned = try #require(back.effects.withdrawalDeadlines["eth0"], "the grace counts from the return")
        #expect(returned != withdrawn)
        let early = try await applyBatch([.withdrawalDeadline(interface: "eth0", generation: withdrawn)], to: store)
        #expect(early.updates.isEmpty, "the deadline of the withdrawal was replaced by the return's")
        let done = try await applyBatch([.withdrawalDeadline(interface: "eth0", generation: returned)], to: store)
        #expect(done.updates.isEmpty, "both were reported again")
        #expect(await store.deviceCount == 2)
    }

    @Test func aQuietRoundAfterTheLinkCameBackRemovesWhatWasNotReportedAgain() async throws {
        let store = await makeRunningStoreWithTwoDevices()
        await store.apply(withdrawal)
        let back = await store.apply([.discovery(.mdns(.interfaceReturned("eth0"))), .resolved(television)])
        var generation = try #require(back.withdrawalDeadlines["eth0"])
        // Two rounds at least after the return (the daemon flushes records while it fills its cache again), and none
        // while things still come back: the TV did in the first.
        var rounds = 0
        var outcome: BatchOutcome
        repeat {
            rounds += 1
            outcome = try await applyBatch([.withdrawalDeadline(interface: "eth0", generation: generation)], to: store)
            if outcome.updates.isEmpty {
                generation = try #require(outcome.effects.withdrawalDeadlines["eth0"], "another round")
            }
        } while outcome.updates.isEmpty && rounds < ResyncSchedule.maximumWithdrawalRounds
        #expect(rounds == 3, "the first two after the return wait, and the TV came back in the first")
        var expected = ScanChangeset()
        expected.itemDeletes = [
            .init(id: DeviceID.make(hostName: "nas.local"), from: ItemIndexPath(section: 1, item: 0))
        ]
        #expect(outcome.changes == expected)
    }

    @Test func aLinkThatIsBackGivesItsHostsRoundsToAnswerAndOneStillDownNone() async throws {
        let store = await makeRunningStoreWithTwoDevices()
        let record = HostAddress(hostName: "tv.local", address: "10.0.0.70", interface: "eth0", ipProtocol: .ipv4)
        await store.apply([.discovery(.mdns(.addressAdded(record)))])

        // Still down at the deadline: what was learnt there goes at once, records and all.
        let down = try #require(await store.apply(withdrawal).withdrawalDeadlines["eth0"])
        let gone = await store.apply([.withdrawalDeadline(interface: "eth0", generation: down)])
        #expect(gone.withdrawalDeadlines.isEmpty)
        #expect(await store.deviceCount == 0)

        // Back: the rows are found again, the TV has not answered for its addresses yet: rounds, up to the last.
        await store.apply([.resolved(television), .resolved(nas), .discovery(.mdns(.addressAdded(record)))])
        await store.apply(withdrawal)
        let back = await store.apply([
            .discovery(.mdns(.interfaceReturned("eth0"))), .discovery(.mdns(.serviceFound(television.key))),
            .discovery(.mdns(.serviceFound(nas.key))),
        ])
        var generation = try #require(back.withdrawalDeadlines["eth0"])
        for round in 1..<ResyncSchedule.maximumWithdrawalRounds {
            let deadline = StoreInput.withdrawalDeadline(interface: "eth0", generation: generation)
            let outcome = try await applyBatch([deadline], to: store)
            #expect(outcome.updates.isEmpty, "round \(round)")
            generation = try #require(outcome.effects.withdrawalDeadlines["eth0"], "round \(round) asks for another")
        }
        let last = try await applyBatch([.withdrawalDeadline(interface: "eth0", generation: generation)], to: store)
        #expect(last.effects.withdrawalDeadlines.isEmpty)
        #expect(await store.snapshot.device(hostName: "tv.local")?.addresses == ["10.0.0.7"])
        #expect(await store.deviceCount == 2)
    }

    @Test func anOutageOfTheSourceReplacesTheWithdrawal() async throws {
        let store = await makeRunningStoreWithTwoDevices()
        let generation = try #require(await store.apply(withdrawal).withdrawalDeadlines["eth0"])
        await store.apply([.source(.connecting)])
        await store.apply([.source(.running), .resolved(television), .resolved(nas)])
        let outcome = try await applyBatch([.withdrawalDeadline(interface: "eth0", generation: generation)], to: store)
        #expect(outcome.updates.isEmpty, "the resync decides now")
        #expect(await store.deviceCount == 2)
    }

    @Test func nothingIsWithdrawnWhileScanningIsOff() async throws {
        let store = await makeRunningStoreWithTwoDevices()
        await store.apply([.setScanning(false)])
        #expect(await store.apply(withdrawal).withdrawalDeadlines.isEmpty)
    }
}
