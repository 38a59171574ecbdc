// The scan service over a fake discovery source: events reach the store in order, the store's effects are carried
// out (browsing, the state file, the resync timer), and the service ends on graceful shutdown or cancellation.

import Discovery
import Foundation
import InMemoryLogging
import Logging
import NetworkInterfaces
import PeerScanModel
import ServiceLifecycle
import TestSupport
import Testing

@testable import PeerScanCore

/// Runs a scan service over a fake source in a task while `body` runs, then cancels it and waits for it to end.
private func withRunningService(
    store: SnapshotStore = makeStore(),
    stateFile: ScanningStateFile? = nil,
    resyncGracePeriod: Duration = .seconds(10),
    settleWindow: Duration = .milliseconds(250),
    logger: Logger = Logger.silent,
    _ body: (ScanService, FakeDiscoverySource) async throws -> Void
) async throws {
    let source = FakeDiscoverySource()
    let service = ScanService(
        sources: [source],
        store: store,
        stateFile: stateFile,
        resyncGracePeriod: resyncGracePeriod,
        settleWindow: settleWindow,
        logger: logger
    )
    let running = Task { try await service.run() }
    do {
        try await body(service, source)
    } catch {
        running.cancel()
        throw error
    }
    running.cancel()
    try await running.value
}

/// Sends a marker event (a new host name) and waits until the store has applied it, and so everything sent before.
private func waitUntilApplied(
    _ source: FakeDiscoverySource,
    _ store: SnapshotStore,
    state: SourceState = .running
) async -> Bool {
    let marker = "marker-\(UUID()).local"
    source.send(.mdns(.sourceState(state, hostName: marker)))
    return await eventually { await store.hostStatus.hostName == marker }
}

@Suite struct ScanServiceTests {
    @Test(arguments: [true, false])
    func browsesAsTheStoresSwitchSays(isScanning: Bool) async throws {
        try await withRunningService(store: makeStore(isScanning: isScanning)) { _, source in
            #expect(await eventually { source.browsingCalls == [isScanning] })
        }
    }

    @Test func appliesTheEventsInOrder() async throws {
        let store = makeStore()
        try await withRunningService(store: store) { _, source in
            for port in 1...200 {
                source.send(.mdns(.serviceResolved(makeInstance("TV", host: "tv.local", port: UInt16(port)))))
            }
            source.send(
                .mdns(.serviceResolved(makeInstance("Radio", host: "radio.local"))),
                .mdns(.serviceRemoved(makeInstanceKey("Radio"))),
                .mdns(.serviceRemoved(makeInstanceKey("NAS"))),
                .mdns(.serviceResolved(makeInstance("NAS", host: "nas.local")))
            )
            #expect(await waitUntilApplied(source, store))
            let snapshot = await store.snapshot
            #expect(snapshot.device(hostName: "tv.local")?.services.map(\.port) == [200])
            #expect(snapshot.device(hostName: "radio.local") == nil)
            #expect(snapshot.device(hostName: "nas.local") != nil)
        }
    }

    @Test func switchingScanningOffStopsBrowsingAndSavesTheSwitch() async throws {
        try await withTemporaryDirectory { directory in
            let store = makeStore()
            let stateFile = ScanningStateFile(directory: directory)
            try await withRunningService(store: store, stateFile: stateFile) { service, source in
                let sequence = await service.setScanning(false)
                #expect(sequence == 1)
                #expect(await store.sequence == 1)
                #expect(await !store.scanning)
                #expect(await eventually { source.browsingCalls == [true, false] })
                #expect(await eventually { (try? stateFile.load()) == false })

                #expect(await service.setScanning(true) == 2)
                #expect(await eventually { source.browsingCalls == [true, false, true] })
                #expect(await eventually { (try? stateFile.load()) == true })
            }
        }
    }

    @Test func aSwitchThatCannotBeSavedStillSwitchesAndIsLogged() async throws {
        try await withTemporaryDirectory { directory in
            let regularFile = directory + "/plain"
            try "".write(toFile: regularFile, atomically: true, encoding: .utf8)
            let logs = InMemoryLogHandler()
            let logger = Logger(label: "peerscan.tests") { _ in logs }
            let store = makeStore()
            try await withRunningService(
                store: store,
                stateFile: ScanningStateFile(directory: regularFile),
                logger: logger
            ) { service, source in
                _ = await service.setScanning(false)
                #expect(await !store.scanning)
                #expect(await eventually { source.browsingCalls == [true, false] })
                #expect(
                    await eventually {
                        logs.entries.contains { $0.level == .error && $0.message == "state save failed" }
                    }
                )
            }
        }
    }

    @Test func theGraceTimerRemovesDevicesNotSeenAgainWhenBrowsingNeverSettles() async throws {
        let clock = ManualClock()
        let store = SnapshotStore(isScanning: true, interfaces: [], clock: ScanClock(clock))
        try await withRunningService(store: store, resyncGracePeriod: .seconds(10)) { _, source in
            source.send(
                .mdns(.serviceResolved(makeInstance("TV", host: "tv.local"))),
                .mdns(.serviceResolved(makeInstance("NAS", host: "nas.local")))
            )
            #expect(await waitUntilApplied(source, store))
            #expect(await waitUntilApplied(source, store, state: .connecting))
            #expect(clock.sleeperCount == 0, "no timer while the source is away")
            source.send(
                .mdns(.sourceState(.running, hostName: nil)),
                .mdns(.serviceResolved(makeInstance("TV", host: "tv.local")))
            )
            #expect(await eventually { clock.sleeperCount == 1 }, "back: the grace timer is armed")

            clock.advance(by: .seconds(9))
            #expect(await waitUntilApplied(source, store))
            #expect(await store.deviceCount == 2, "within the grace period, the NAS is kept")

            clock.advance(by: .seconds(1))
            #expect(await eventually { await store.deviceCount == 1 })
            #expect(await store.snapshot.devices.map(\.hostName) == ["tv.local"])
            #expect(clock.sleeperCount == 0)
        }
    }

    @Test func aDeviceWaitingOnARowIsPublishedOnceWhole() async throws {
        let clock = ManualClock()
        let store = SnapshotStore(
            isScanning: true,
            interfaces: [],
            mdns: MDNSHostTable(settles: true),
            clock: ScanClock(clock)
        )
        try await withRunningService(store: store, settleWindow: .milliseconds(250)) { _, source in
            let tvV4 = makeInstance("TV", host: "tv.local", ipProtocol: .ipv4, addresses: ["10.0.0.7"])
            let tvV6 = makeInstance("TV", host: "tv.local", ipProtocol: .ipv6, addresses: ["fd00::7"])
            source.send(.mdns(.serviceFound(tvV4.key)), .mdns(.serviceFound(tvV6.key)), .mdns(.serviceResolved(tvV6)))
            #expect(await eventually { clock.sleeperCount == 1 }, "a settle window is timed")
            #expect(await store.deviceCount == 0, "held while its IPv4 row resolves")
            source.send(.mdns(.serviceResolved(tvV4)))
            #expect(await eventually { await store.deviceCount == 1 })
            #expect(await store.sequence == 1, "one changeset")
            #expect(await store.snapshot.device(hostName: "tv.local")?.addresses == ["10.0.0.7", "fd00::7"])
        }
    }

    @Test func aDeviceWaitingOnARowThatNeverResolvesIsPublishedWhenItsSettleWindowEnds() async throws {
        let clock = ManualClock()
        let store = SnapshotStore(
            isScanning: true,
            interfaces: [],
            mdns: MDNSHostTable(settles: true),
            clock: ScanClock(clock)
        )
        try await withRunningService(store: store, settleWindow: .milliseconds(250)) { _, source in
            let radio = makeInstance("Radio", host: "radio.local", ipProtocol: .ipv6, addresses: ["fd00::8"])
            source.send(
                .mdns(.serviceFound(makeInstanceKey("Radio", ipProtocol: .ipv4))),
                .mdns(.serviceResolved(radio))
            )
            #expect(await eventually { clock.sleeperCount == 1 })
            clock.advance(by: .milliseconds(249))
            #expect(await waitUntilApplied(source, store))
            #expect(await store.deviceCount == 0, "not before the window ends")
            clock.advance(by: .milliseconds(1))
            #expect(await eventually { await store.deviceCount == 1 })
            #expect(await store.snapshot.device(hostName: "radio.local")?.addresses == ["fd00::8"])
        }
    }

    @Test func gracefulShutdownAppliesWhatIsPendingAndEndsRun() async throws {
        let store = makeStore()
        let source = FakeDiscoverySource()
        let service = ScanService(sources: [source], store: store, stateFile: nil, logger: Logger.silent)
        let group = ServiceGroup(services: [service], logger: Logger.silent)
        let subscription = await store.subscribe()
        let running = Task { try await group.run() }
        #expect(await eventually { !source.browsingCalls.isEmpty })

        service.submit(.setScanning(false))
        await group.triggerGracefulShutdown()
        try await running.value
        #expect(await !store.scanning)
        #expect(await collect(subscription.updates)?.count == 1, "the subscriptions are ended")
    }

    // The grace timer is a child task of run(): shutting down while it is armed must not make run() throw.
    @Test func gracefulShutdownWhileTheGraceTimerIsArmedEndsRunWithoutError() async throws {
        let clock = ManualClock()
        let store = SnapshotStore(isScanning: true, interfaces: [], clock: ScanClock(clock))
        let source = FakeDiscoverySource()
        let service = ScanService(
            sources: [source],
            store: store,
            stateFile: nil,
            resyncGracePeriod: .seconds(10),
            logger: Logger.silent
        )
        let group = ServiceGroup(services: [service], logger: Logger.silent)
        let running = Task { try await group.run() }
        source.send(.mdns(.serviceResolved(makeInstance("TV", host: "tv.local"))))
        #expect(await waitUntilApplied(source, store))
        #expect(await waitUntilApplied(source, store, state: .connecting))
        #expect(await waitUntilApplied(source, store))
        #expect(await eventually { clock.sleeperCount == 1 }, "back: the timer is armed")

        await group.triggerGracefulShutdown()
        await #expect(throws: Never.self) { try await running.value }
        #expect(clock.sleeperCount == 0, "the timer was cancelled")
    }

    @Test func cancellingRunEndsItAndTheSubscriptions() async throws {
        let store = makeStore()
        let source = FakeDiscoverySource()
        let service = ScanService(sources: [source], store: store, stateFile: nil, logger: Logger.silent)
        let subscription = await store.subscribe()
        let running = Task { try await service.run() }
        #expect(await eventually { !source.browsingCalls.isEmpty })
        running.cancel()
        try await running.value
        #expect(await collect(subscription.updates) != nil)
    }
}
