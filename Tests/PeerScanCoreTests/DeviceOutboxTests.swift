import Discovery
import Foundation
import PeerScanModel
import Testing

@testable import PeerScanCore

/// The device table's outbox on its own: a device's last change counts, events and questions keep their order, a
/// take empties what it hands over.
@Suite struct DeviceOutboxTests {
    private func item(_ name: String) -> ScanItem {
        .device(
            Device(
                id: DeviceID.make(hostName: "\(name).local"),
                hostName: "\(name).local",
                displayName: name,
                addresses: ["10.0.0.5"],
                interfaces: ["lan0"],
                services: []
            )
        )
    }

    @Test func handsOverEachDevicesLastChangeInOrderOfIdentifier() {
        var outbox = DeviceOutbox()
        let tv = DeviceID.make(hostName: "tv.local")
        let nas = DeviceID.make(hostName: "nas.local")
        outbox.add(DeviceTable.Change(id: tv, item: item("tv")))
        outbox.add(DeviceTable.Change(id: nas, item: item("nas")))
        outbox.add(DeviceTable.Change(id: tv, item: nil))

        let taken = outbox.takeChanges()
        #expect(taken.changes.map(\.id) == [tv, nas].sorted())
        #expect(taken.changes.first { $0.id == tv }?.item == nil, "removed after its update: the removal counts")
        #expect(taken.changes.first { $0.id == nas }?.device?.hostName == "nas.local")
        let again = outbox.takeChanges()
        #expect(again.changes.isEmpty)
    }

    @Test func handsOverRemovalsEventsAndQuestionsInOrder() {
        var outbox = DeviceOutbox()
        let ids = [DeviceID(UUID()), DeviceID(UUID())]
        outbox.addRemovals(of: ids)
        outbox.add(.bluetoothAddressUnresolved(address: "a", error: "1"))
        outbox.add(.bluetoothAddressUnresolved(address: "b", error: "2"))
        let tv = HostQuestion(hostName: "tv.local", addresses: ["10.0.0.5"], interfaces: ["lan0"])
        let nas = HostQuestion(hostName: "nas.local", addresses: ["10.0.0.6"], interfaces: ["lan0"])
        outbox.add(tv)
        outbox.add(nas)

        let questions = outbox.takeQuestions()
        let questionsAgain = outbox.takeQuestions()
        #expect(questions == [tv, nas])
        #expect(questionsAgain.isEmpty)
        let taken = outbox.takeChanges()
        #expect(taken.changes.map(\.id) == ids.sorted())
        #expect(taken.changes.allSatisfy { $0.item == nil })
        #expect(
            taken.events == [
                .bluetoothAddressUnresolved(address: "a", error: "1"),
                .bluetoothAddressUnresolved(address: "b", error: "2"),
            ]
        )
        let again = outbox.takeChanges()
        #expect(again.events.isEmpty)
    }

    @Test func removeQuestionsKeepsChangesAndEvents() {
        var outbox = DeviceOutbox()
        let tv = DeviceID.make(hostName: "tv.local")
        outbox.add(DeviceTable.Change(id: tv, item: nil))
        outbox.add(.bluetoothAddressUnresolved(address: "a", error: "1"))
        outbox.add(HostQuestion(hostName: "tv.local", addresses: [], interfaces: []))
        outbox.removeQuestions()
        let questions = outbox.takeQuestions()
        #expect(questions.isEmpty)
        let taken = outbox.takeChanges()
        #expect(taken.changes.map(\.id) == [tv])
        #expect(taken.events.count == 1)
    }
}
