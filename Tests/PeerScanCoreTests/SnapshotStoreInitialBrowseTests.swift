// A fresh daemon holds its first snapshot until the initial browse has settled, so that no client sees a snapshot
// that lacks devices merely not rediscovered yet.

import Discovery
import NIOConcurrencyHelpers
import NetworkInterfaces
import PeerScanModel
import TestSupport
import Testing

@testable import PeerScanCore

private func makeWaitingStore(isScanning: Bool = true) -> SnapshotStore {
    SnapshotStore(
        isScanning: isScanning,
        interfaces: [],
        mdns: MDNSHostTable(settles: true),
        initialBrowseQuietPeriod: .zero
    )
}

@Suite(.timeLimit(.minutes(1))) struct SnapshotStoreInitialBrowseTests {
    @Test func settlesOnceTheRunningSourceReportedAllAndEveryRowFoundIsResolved() async {
        let store = makeWaitingStore()
        let tvV4 = makeInstance("TV", host: "tv.local", ipProtocol: .ipv4, addresses: ["10.0.0.7"])
        let tvV6 = makeInstance("TV", host: "tv.local", ipProtocol: .ipv6, addresses: ["fd00::7"])
        await store.apply([.discovery(.mdns(.browsingSettled))])
        #expect(await !store.hasInitialBrowseSettled, "all-for-now before the source runs does not count")
        await store.apply([
            .source(.running), .discovery(.mdns(.serviceFound(tvV4.key))), .discovery(.mdns(.serviceFound(tvV6.key))),
            .resolved(tvV6), .discovery(.mdns(.browsingSettled)),
        ])
        #expect(await !store.hasInitialBrowseSettled, "a row found is still resolving")
        let waiting = Task { await store.waitUntilInitialBrowseSettled() }
        await store.apply([.resolved(tvV4)])
        #expect(await store.hasInitialBrowseSettled)
        await waiting.value
        #expect(await store.snapshot.device(hostName: "tv.local")?.addresses == ["10.0.0.7", "fd00::7"])
    }

    // A large LAN goes on being reported long after the source said it reported all it knows: the initial browse
    // settles only once nothing new was found for the quiet period.
    @Test func settlesOnlyOnceNothingNewWasFoundForTheQuietPeriod() async {
        let clock = ManualClock()
        let store = SnapshotStore(
            isScanning: true,
            interfaces: [],
            initialBrowseQuietPeriod: .seconds(1),
            clock: ScanClock(clock)
        )
        let tv = makeInstance("TV", host: "tv.local", addresses: ["10.0.0.7"])
        let nas = makeInstance("NAS", type: "_smb._tcp", host: "nas.local", addresses: ["10.0.0.8"])
        let first = await store.apply([.source(.running), .resolved(tv), .discovery(.mdns(.browsingSettled))])
        #expect(await !store.hasInitialBrowseSettled, "the TV was found just now")
        #expect(first.checkAfter == .seconds(1))
        clock.advance(by: .milliseconds(600))
        let second = await store.apply([.resolved(nas)])
        #expect(await !store.hasInitialBrowseSettled, "the NAS was found just now")
        #expect(second.checkAfter == .seconds(1))
        clock.advance(by: .milliseconds(700))
        let early = await store.apply([.presenceCheck])
        #expect(await !store.hasInitialBrowseSettled)
        #expect(early.checkAfter == .milliseconds(300))
        clock.advance(by: .milliseconds(300))
        let settled = await store.apply([.presenceCheck])
        #expect(await store.hasInitialBrowseSettled)
        #expect(settled.checkAfter == nil)
        #expect(await store.deviceCount == 2)
    }

    @Test func theTimeLimitSettlesItWhateverIsMissing() async {
        let store = makeWaitingStore()
        await store.apply([.source(.registering)])
        #expect(await !store.hasInitialBrowseSettled)
        await store.apply([.initialBrowseDeadline])
        #expect(await store.hasInitialBrowseSettled)
        await store.waitUntilInitialBrowseSettled()
    }

    @Test func withScanningOffOrWithoutWaitingThereIsNothingToWaitFor() async {
        #expect(await makeWaitingStore(isScanning: false).hasInitialBrowseSettled)
        #expect(await makeStore().hasInitialBrowseSettled)
        await makeStore().waitUntilInitialBrowseSettled()
    }

    @Test func switchingScanningOffMeanwhileSettlesIt() async {
        let store = makeWaitingStore()
        await store.apply([.setScanning(false)])
        #expect(await store.hasInitialBrowseSettled)
    }
}
