// The alert service as peerscand wires it: the store's notices through its recorder and its updates through a
// subscription reach the policy in order, and what it decides lands in the outbox and goes to the follower.

import AsyncPrimitives
import DeviceRegistry
import Discovery
import Foundation
import PeerScanCore
import PeerScanModel
import TestSupport
import Testing

@testable import PeerscandProgram

/// An mDNS device `name` (host `host`) with one SSH service, resolved on lan0.
private func resolved(_ name: String, host: String, address: String) -> StoreInput {
    let key = ServiceInstanceKey(interface: "lan0", ipProtocol: .ipv4, name: name, type: "_ssh._tcp", domain: "local")
    return .discovery(
        .mdns(.serviceResolved(ServiceInstance(key: key, hostName: host, addresses: [address], port: 22, txt: [])))
    )
}

@Suite(.timeLimit(.minutes(1))) struct AlertServiceTests {
    @Test func aNewMDNSDeviceIsOneAlertWithItsNameInTheOutboxAndAtTheFollower() async throws {
        let inputs = DrainingQueue<AlertService.Input>()
        let store = SnapshotStore(
            isScanning: true,
            interfaces: ["lan0"],
            recorders: StoreRecorders(notices: { inputs.push(.notices($0)) })
        )
        await store.apply([.discovery(.mdns(.sourceState(.running, hostName: "scanner.local")))])
        let outbox = AlertOutbox(
            registry: DeviceRegistry(path: nil, forgetAfter: .seconds(60), logger: .silent),
            logger: .silent
        )
        let following = await outbox.follow(["json://hook/"])
        let service = AlertService(
            store: store,
            outbox: outbox,
            inputs: inputs,
            settings: AlertPolicy.Settings(),
            clock: ScanClock(ManualClock())
        )
        let running = Task { try await service.run() }
        defer { running.cancel() }

        await store.apply([resolved("Alpha", host: "alpha.local", address: "10.0.0.1")])
        var updates = following.updates.makeAsyncIterator()
        guard case .alert(let destination, let alert) = await updates.next() else {
            Issue.record("no alert")
            return
        }
        #expect(destination == "json://hook/")
        #expect(alert.event == .newDevice && alert.title == "New device: Alpha")
        #expect(alert.fields["host"] == "alpha.local")
        #expect(await outbox.pending(for: "json://hook/") == [alert])
        // A change of the same device is no second alert: the next one is the one asked for now.
        await store.apply([resolved("Alpha", host: "alpha.local", address: "10.0.0.2")])
        await store.apply([.discovery(.mdns(.sourceState(.failure(reason: "gone"), hostName: nil)))])
        guard case .alert(_, let fault) = await updates.next() else {
            Issue.record("no second alert")
            return
        }
        #expect(fault.event == .scannerFault && fault.title == "Scanner fault: Avahi failure")
    }
}
