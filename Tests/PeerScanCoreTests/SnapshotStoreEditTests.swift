import Discovery
import Foundation
import MonitoringLog
import NIOConcurrencyHelpers
import PeerScanModel
import Testing

@testable import PeerScanCore

private let macA = "00:00:0c:11:22:33"
private let macB = "00:00:0c:44:55:66"

/// A person's commands through the store: each is one changeset, its reply comes once it is in the snapshot, and the
/// registry gets what changed.
@Suite struct SnapshotStoreEditTests {
    let records = NIOLockedValueBox<[DeviceRecords]>([])

    func makeStore(alertsNewDevices: Bool = false) -> SnapshotStore {
        SnapshotStore(
            isScanning: true,
            interfaces: ["eth0"],
            devices: DeviceTable(
                presence: DeviceTable.Presence(offlineAfter: .seconds(60), forgetAfter: .seconds(3600))
            ),
            alertsNewDevices: alertsNewDevices,
            recorders: StoreRecorders(devices: { [records] batch in records.withLockedValue { $0.append(batch) } })
        )
    }

    @Test func aLabelAMergeAndASplitAreOneChangesetEachWithTheirReplies() async throws {
        let store = makeStore()
        await store.apply([makeNeighbourInput("10.0.0.5", macA), makeNeighbourInput("10.0.0.6", macB)])
        let a = DeviceID.make(macAddress: macA)
        let b = DeviceID.make(macAddress: macB)

        let label = NIOLockedValueBox<DeviceLabel?>(nil)
        let labelled = try await applyBatch(
            [
                .edit(
                    .setLabel(
                        DeviceLabelEdit(name: "Phone"),
                        of: a,
                        reply: { reply in label.withLockedValue { $0 = reply } }
                    )
                )
            ],
            to: store
        )
        #expect(label.withLockedValue { $0 } == DeviceLabel(name: "Phone"))
        #expect(labelled.changes?.itemUpdates.map(\.item.device?.displayName) == ["Phone"])
        #expect(records.withLockedValue { $0.last?.labels } == [a: DeviceLabel(name: "Phone")])

        let merged = NIOLockedValueBox<Result<Void, DeviceEditError>?>(nil)
        let merging = try await applyBatch(
            [.edit(.merge([b], into: a, reply: { reply in merged.withLockedValue { $0 = reply } }))],
            to: store
        )
        #expect(merged.withLockedValue { (try? $0?.get()) != nil })
        let changes = try #require(merging.changes, "one changeset")
        #expect(changes.itemDeletes.map(\.id) == [b])
        #expect(changes.itemUpdates.map(\.item.device?.macAddresses) == [[macA, macB]])
        #expect(Set(merging.effects.logs.map(\.message.text)) == ["device merged", "device changed"])
        #expect(records.withLockedValue { $0.last?.identityChanges } == [.merged(b, into: a)])

        let split = NIOLockedValueBox<Result<DeviceID, DeviceEditError>?>(nil)
        let splitting = try await applyBatch(
            [.edit(.split(.macAddress(macB), from: a, reply: { reply in split.withLockedValue { $0 = reply } }))],
            to: store
        )
        #expect(split.withLockedValue { try? $0?.get() } == b)
        let apart = try #require(splitting.changes, "one changeset")
        #expect(apart.itemInserts.map(\.item.id) == [b])
        #expect(apart.itemUpdates.map(\.item.device?.macAddresses) == [[macA]])
        #expect(splitting.effects.logs.map(\.message.text).contains("device split"))
        #expect(!splitting.effects.logs.map(\.message.text).contains("new device"))

        let refused = NIOLockedValueBox<Result<DeviceID, DeviceEditError>?>(nil)
        _ = await store.apply([
            .edit(.split(.macAddress(macA), from: a, reply: { reply in refused.withLockedValue { $0 = reply } }))
        ])
        guard case .failure(let error)? = refused.withLockedValue({ $0 }) else {
            Issue.record("the split of its only key was not refused")
            return
        }
        #expect(error == DeviceEditError(.onlyKey, id: a, key: .macAddress(macA)))
    }

    @Test func everyNewDeviceIsAtWarningWithAlertNewDevices() async {
        let effects = await makeStore(alertsNewDevices: true).apply([makeNeighbourInput("10.0.0.5", macA)])
        let line = effects.logs.first { $0.message.text == "new device" }
        #expect(line?.message.level == .warning)
    }
}
