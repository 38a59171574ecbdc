// A person's edits as one value: ``DeviceTable/apply(_:now:)`` (the one switch), ``StoreInput/request(_:submit:)``
// (the one wait for a reply) and the scan service's edits, whose replies come once the change is in the snapshot.

import Discovery
import Logging
import NIOConcurrencyHelpers
import PeerScanModel
import ServiceLifecycle
import TestSupport
import Testing

@testable import PeerScanCore

private let macA = "00:00:0c:11:22:33"
private let macB = "3c:22:fb:44:55:66"

/// Two MAC-only devices, published; their identifiers.
private func twoPhones() -> (DeviceTable, DeviceID, DeviceID) {
    var table = DeviceTable(presence: DeviceTable.Presence(offlineAfter: .seconds(60), forgetAfter: .seconds(600)))
    table.updateNeighbour(makeNeighbour("10.0.0.5", macA), now: .zero)
    table.updateNeighbour(makeNeighbour("10.0.0.6", macB), now: .zero)
    _ = table.takeChanges(now: .zero)
    return (table, DeviceID.make(macAddress: macA), DeviceID.make(macAddress: macB))
}

/// A reply's slot: what the edit's reply got, if it was called.
private final class Slot<Value: Sendable>: Sendable {
    private let box = NIOLockedValueBox<Value?>(nil)
    var value: Value? { box.withLockedValue { $0 } }
    var reply: @Sendable (Value) -> Void { { [box] value in box.withLockedValue { $0 = value } } }
}

@Suite struct DeviceTableEditTests {
    @Test func aLabelsReplyIsTheLabelNowAndComesOnlyWhenTheAnswerIsSent() {
        var (table, a, _) = twoPhones()
        let label = Slot<DeviceLabel?>()
        let answer = table.apply(.setLabel(DeviceLabelEdit(name: "Phone"), of: a, reply: label.reply), now: .zero)
        #expect(label.value == nil, "not before the change is published")
        answer()
        #expect(label.value == .some(DeviceLabel(name: "Phone")))
        #expect(table.takeLabelChanges() == [a: DeviceLabel(name: "Phone")])
    }

    @Test func aLabelOfAnUnknownDeviceIsAnsweredWithNil() {
        var (table, _, _) = twoPhones()
        let label = Slot<DeviceLabel?>()
        table.apply(
            .setLabel(DeviceLabelEdit(name: "Ghost"), of: DeviceID.make(hostName: "x.local"), reply: label.reply),
            now: .zero
        )()
        #expect(label.value == .some(nil))
    }

    @Test func aMergeAndASplitAreAnsweredWithTheTablesOutcome() throws {
        var (table, a, b) = twoPhones()
        let merged = Slot<Result<Void, DeviceEditError>>()
        table.apply(.merge([b], into: a, reply: merged.reply), now: .zero)()
        #expect(try merged.value.map { try $0.get() } != nil)
        let split = Slot<Result<DeviceID, DeviceEditError>>()
        table.apply(.split(.macAddress(macB), from: a, reply: split.reply), now: .zero)()
        #expect(try split.value?.get() == b)
        let refused = Slot<Result<DeviceID, DeviceEditError>>()
        table.apply(.split(.macAddress(macA), from: a, reply: refused.reply), now: .zero)()
        guard case .failure(let error)? = refused.value else {
            Issue.record("the split of its only key was not refused")
            return
        }
        #expect(error == DeviceEditError(.onlyKey, id: a, key: .macAddress(macA)))
    }

    @Test func anIRKForAnUnknownDeviceIsRefused() {
        var (table, a, _) = twoPhones()
        let unknown = DeviceID.make(hostName: "x.local")
        let key = IdentityResolvingKey(hex: "0123456789abcdef0123456789abcdef")
        let refused = Slot<Result<Void, DeviceEditError>>()
        table.apply(.setIRK(key, for: unknown, reply: refused.reply), now: .zero)()
        guard case .failure(let error)? = refused.value else {
            Issue.record("an IRK for an unknown device was taken")
            return
        }
        #expect(error == DeviceEditError(.unknownDevice, id: unknown))
        let bound = Slot<Result<Void, DeviceEditError>>()
        table.apply(.setIRK(key, for: a, reply: bound.reply), now: .zero)()
        #expect(throws: Never.self) { try bound.value?.get() }
        #expect(table.takeIRKChanges()[a] == .some(key))
    }

    @Test func forgettingIsAnsweredWithWhetherEachDeviceWasKnown() {
        var (table, a, _) = twoPhones()
        let known = Slot<[Bool]>()
        table.apply(.forget([a, DeviceID.make(hostName: "x.local")], reply: known.reply), now: .seconds(1))()
        #expect(known.value == [true, false])
        let again = Slot<[Bool]>()
        table.apply(.forget([a], reply: again.reply), now: .seconds(2))()
        #expect(again.value == [false], "forgotten")
    }

    @Test func aRequestNotQueuedIsAnsweredWithNil() async {
        let reply: Int? = await StoreInput.request({ _ in .presenceCheck }, submit: { _ in false })
        #expect(reply == nil)
    }

    @Test func aRequestIsAnsweredWithWhatTheStoreReplies() async {
        let store = SnapshotStore(isScanning: true, interfaces: ["eth0"])
        await store.apply([makeNeighbourInput("10.0.0.5", macA)])
        let a = DeviceID.make(macAddress: macA)
        let label: DeviceLabel?? = await StoreInput.request(
            { .edit(.setLabel(DeviceLabelEdit(name: "Phone"), of: a, reply: $0)) },
            submit: { input in
                Task { await store.apply([input]) }
                return true
            }
        )
        #expect(label == .some(DeviceLabel(name: "Phone")))
    }

    @Test(.timeLimit(.minutes(1)))
    func theScanServicesEditIsAnsweredOnceItIsInTheSnapshotAndWithNilOnceItStopped() async throws {
        let clock = ManualClock()
        let store = SnapshotStore(isScanning: true, interfaces: ["eth0"], clock: ScanClock(clock))
        await store.apply([makeNeighbourInput("10.0.0.5", macA)])
        let before = await store.sequence
        let a = DeviceID.make(macAddress: macA)
        let service = ScanService(sources: [], store: store, stateFile: nil, logger: Logger(label: "test"))
        let group = ServiceGroup(services: [service], logger: Logger(label: "test"))
        let running = Task { try await group.run() }
        let label = await service.edit { .setLabel(DeviceLabelEdit(name: "Phone"), of: a, reply: $0) }
        #expect(label == .some(DeviceLabel(name: "Phone")))
        #expect(await store.sequence == before + 1, "in the snapshot when answered")
        #expect(await store.snapshot.item(withIdentifier: a)?.device?.displayName == "Phone")
        await group.triggerGracefulShutdown()
        try await running.value
        #expect(await service.edit { .forget([a], reply: $0) } == nil, "not queued once the service stopped")
    }
}
