// One clock drives the whole daemon core: a device goes online → offline → forgotten through the scan service and
// the store, with a manual clock and no real sleep.

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
        let clock = ManualClock()
        let store = SnapshotStore(
            isScanning: true,
            interfaces: ["eth0"],
            presence: DeviceTable.Presence(offlineAfter: .seconds(60), forgetAfter: .seconds(600)),
            clock: ScanClock(clock)
        )
        let logs = InMemoryLogHandler()
        let source = FakeDiscoverySource()
        let service = ScanService(
            sources: [source],
            store: store,
            stateFile: nil,
            presenceInterval: .seconds(1),
            logger: Logger(label: "peerscan.tests") { _ in logs }
        )
        let running = Task { try await service.run() }
        defer { running.cancel() }
        func messages() -> [String] { logs.entries.map(\.message.description) }

        let plug = Neighbour(
            address: "10.0.0.9",
            interface: "eth0",
            macAddress: "00:00:0c:99:99:99",
            state: .reachable,
            lastConfirmed: .zero
        )
        source.send(.sourceState(.running, hostName: nil), .observed(.neighbourUpdated(plug)))
        #expect(await eventually { await store.snapshot.devices.first?.online == true })
        #expect(await eventually { messages().contains("new device") })

        // The kernel's entry fails: the device stops answering at 0 s.
        var failed = plug
        failed.state = .failed
        failed.lastConfirmed = nil
        source.send(.observed(.neighbourUpdated(failed)))
        #expect(await eventually { clock.sleeperCount >= 1 }, "the presence check sleeps on the manual clock")
        for _ in 0..<59 { await advanceOneSecond(clock) }
        #expect(await store.snapshot.devices.first?.online == true, "online within --offline-after")

        await advanceOneSecond(clock)
        #expect(await eventually { await store.snapshot.devices.first?.online == false }, "offline at 60 s")
        #expect(await eventually { messages().contains("device offline") })
        #expect(await store.deviceCount == 1, "an offline device stays listed")

        for _ in 60..<599 { await advanceOneSecond(clock) }
        #expect(await store.deviceCount == 1, "kept until --forget-after")
        await advanceOneSecond(clock)
        #expect(await eventually { await store.deviceCount == 0 }, "forgotten at 600 s")
        #expect(await eventually { messages().contains("device removed") })
    }
}

/// Moves the clock one second and waits until the presence check it woke has slept again.
private func advanceOneSecond(_ clock: ManualClock) async {
    clock.advance(by: .seconds(1))
    _ = await eventually { clock.sleeperCount >= 1 }
}
