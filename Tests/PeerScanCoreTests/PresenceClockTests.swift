// One clock drives the whole daemon core: a device goes online → offline → forgotten through the scan service and
// the store, with a manual clock and no real sleep. Nothing polls: the store sleeps until a device's next deadline.

import Discovery
import InMemoryLogging
import Logging
import PeerScanModel
import ServiceLifecycle
import TestSupport
import Testing

@testable import PeerScanCore

@Suite struct PresenceClockTests {
    @Test(.timeLimit(.minutes(1)))
    func aDeviceGoesOnlineThenOfflineThenIsForgottenOnTheManualClock() async throws {
        let (clock, store, source, logs, running) = startService(offlineAfter: .seconds(60))
        defer { running.cancel() }
        func messages() -> [String] { logs.entries.map(\.message.description) }

        let plug = Neighbour(
            address: "10.0.0.9",
            interface: "eth0",
            macAddress: "00:00:0c:99:99:99",
            state: .reachable,
            lastConfirmed: .zero
        )
        source.send(.mdns(.sourceState(.running, hostName: nil)), .neighbour(.neighbourUpdated(plug)))
        #expect(await eventually { await store.snapshot.devices.first?.online == true })
        #expect(await eventually { messages().contains("new device") })

        // The kernel's entry fails: the device stops answering at 0 s.
        var failed = plug
        failed.state = .failed
        failed.lastConfirmed = nil
        source.send(.neighbour(.neighbourUpdated(failed)))
        #expect(await eventually { clock.wakeTimes == [.seconds(60)] }, "the store sleeps until --offline-after")
        clock.advance(to: .seconds(59))
        #expect(await store.snapshot.devices.first?.online == true, "online within --offline-after")

        clock.advance(to: .seconds(60))
        #expect(await eventually { await store.snapshot.devices.first?.online == false }, "offline at 60 s")
        #expect(await eventually { messages().contains("device offline") })
        #expect(await store.deviceCount == 1, "an offline device stays listed")

        #expect(await eventually { clock.wakeTimes == [.seconds(600)] }, "then until --forget-after")
        clock.advance(to: .seconds(599))
        #expect(await store.deviceCount == 1, "kept until --forget-after")
        clock.advance(to: .seconds(600))
        #expect(await eventually { await store.deviceCount == 0 }, "forgotten at 600 s")
        #expect(await eventually { messages().contains("device removed") })
    }
}

extension PresenceClockTests {
    @Test(.timeLimit(.minutes(1)))
    func anMDNSHostThatLeavesIsAskedThroughTheSourcesAndIsOfflineOnceItStopsAnswering() async throws {
        let (clock, store, source, logs, running) = startService(offlineAfter: .seconds(10))
        defer { running.cancel() }
        func online() async -> Bool? { await store.snapshot.device(hostName: "phone.local")?.online }

        let reachable = Neighbour(
            address: "10.0.0.7",
            interface: "eth0",
            macAddress: "3c:22:fb:44:55:66",
            state: .reachable,
            lastConfirmed: .zero
        )
        source.send(
            .mdns(.sourceState(.running, hostName: nil)),
            .mdns(.serviceResolved(makeInstance("Phone", host: "phone.local", addresses: ["10.0.0.7"]))),
            .neighbour(.neighbourUpdated(reachable))
        )
        #expect(await eventually { await store.snapshot.device(hostName: "phone.local")?.macAddresses.count == 1 })
        // It leaves without goodbyes at 0 s: the kernel's entry fails, its records stay in Avahi's cache.
        var failed = reachable
        failed.state = .failed
        failed.macAddress = nil
        source.send(.neighbour(.neighbourUpdated(failed)))
        #expect(await eventually { source.questions.map(\.hostName) == ["phone.local"] }, "asked once it failed")
        #expect(await eventually { clock.wakeTimes == [.seconds(10)] }, "it goes offline at 10 s unless it answers")
        clock.advance(to: .seconds(5))
        // It answers at 5 s (applied before the clock moves on: the marker host name comes after it).
        source.send(
            .neighbour(.hostAnswered(hostName: "phone.local", address: "10.0.0.7")),
            .mdns(.sourceState(.running, hostName: "answered.local"))
        )
        #expect(await eventually { await store.hostStatus.hostName == "answered.local" })
        #expect(await online() == true, "it answered at 5 s: online until 15 s")
        // Asked again half a window after its answer (10 s); the wake for 10 s requested before still stands.
        clock.advance(to: .seconds(10))
        #expect(await eventually { source.questions.count == 2 }, "asked again at 10 s, half a window later")
        #expect(await eventually { clock.wakeTimes == [.seconds(15)] }, "then until 15 s")
        clock.advance(to: .seconds(14))
        #expect(await online() == true)
        clock.advance(to: .seconds(15))
        #expect(await eventually { await online() == false }, "offline at 15 s: the second question went unanswered")
        #expect(await eventually { logs.entries.contains { $0.message == "device offline" } })
        let line = try #require(logs.entries.first { $0.message == "device offline" })
        #expect(line.metadata["reason"] == "unanswered")
        #expect(line.metadata["asked"] == "arp,mdns", "what was asked and not answered")
    }
}

/// A scan service over a fake source, running on a manual clock with this presence (forgotten after 600 s), its log
/// kept in memory.
private func startService(
    offlineAfter: Duration
) -> (
    ManualClock, SnapshotStore, FakeDiscoverySource, InMemoryLogHandler, Task<Void, any Error>
) {
    let clock = ManualClock()
    let store = SnapshotStore(
        isScanning: true,
        interfaces: ["eth0"],
        devices: DeviceTable(presence: DeviceTable.Presence(offlineAfter: offlineAfter, forgetAfter: .seconds(600))),
        clock: ScanClock(clock)
    )
    let logs = InMemoryLogHandler()
    let source = FakeDiscoverySource()
    let service = ScanService(
        sources: [source],
        store: store,
        stateFile: nil,
        logger: Logger(label: "peerscan.tests") { _ in logs }
    )
    return (clock, store, source, logs, Task { try await service.run() })
}
