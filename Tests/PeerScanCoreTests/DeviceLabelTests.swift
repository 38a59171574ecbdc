import Discovery
import Foundation
import Logging
import MonitoringLog
import PeerScanModel
import Testing

@testable import PeerScanCore

private let macA = "00:00:0c:11:22:33"
private let macB = "3c:22:fb:44:55:66"

/// A device announced over mDNS whose found name is not its host name, so that a label's name and the found one differ.
private func foundDevice(_ hostName: String, addresses: [String]) -> AnnouncedHost {
    makeMDNSHost(hostName, addresses: addresses, displayName: "Found \(hostName)")
}

private let presence = DeviceTable.Presence(offlineAfter: .seconds(60), forgetAfter: .seconds(600))

/// Labels: what a person says about a device, put on every device the table publishes, on the device's identifier.
@Suite struct DeviceLabelTests {
    @Test func aLabelNamesThePublishedDeviceAndAnEmptyNameClearsIt() throws {
        var table = DeviceTable(presence: presence)
        table.updateMDNSHost(
            hostName: "nas.local",
            host: foundDevice("nas.local", addresses: ["10.0.0.5"]),
            now: .zero
        )
        let id = try #require(table.takeChanges(now: .zero).changes.first?.id)

        let label = table.setLabel(DeviceLabelEdit(name: "Storage", note: "attic", isImportant: true), of: id)
        #expect(label == DeviceLabel(name: "Storage", note: "attic", isImportant: true))
        let (changes, events) = table.takeChanges(now: .seconds(1))
        let device = try #require(changes.first?.device)
        #expect(changes.count == 1 && events.isEmpty, "an update, not a new device")
        #expect(device.displayName == "Storage" && device.assignedName == "Storage" && device.isImportant)
        #expect(table.takeLabelChanges() == [id: label])

        // The note and importance stay; the name goes, and the discovered display name is back.
        #expect(table.setLabel(DeviceLabelEdit(name: ""), of: id) == DeviceLabel(note: "attic", isImportant: true))
        let cleared = try #require(table.takeChanges(now: .seconds(2)).changes.first?.device)
        #expect(cleared.displayName == "Found nas.local" && cleared.assignedName == nil && cleared.isImportant)
    }

    @Test func anUnknownDeviceCannotBeLabelled() {
        var table = DeviceTable(presence: presence)
        #expect(table.setLabel(DeviceLabelEdit(name: "x"), of: DeviceID.make(hostName: "nobody.local")) == nil)
        #expect(table.takeLabelChanges().isEmpty)
    }

    @Test func aMACOnlyDeviceThatStartsAnnouncingMDNSKeepsItsLabel() throws {
        var table = DeviceTable(presence: presence)
        table.updateNeighbour(makeNeighbour("10.0.0.5", macA), now: .zero)
        let id = try #require(table.takeChanges(now: .zero).changes.first?.id)
        _ = table.setLabel(DeviceLabelEdit(name: "Kitchen plug", isImportant: true), of: id)
        _ = table.takeChanges(now: .zero)

        table.updateMDNSHost(
            hostName: "plug.local",
            host: foundDevice("plug.local", addresses: ["10.0.0.5"]),
            now: .seconds(1)
        )
        let changes = table.takeChanges(now: .seconds(1)).changes
        #expect(changes.map(\.id) == [id])
        let device = try #require(changes.first?.device)
        #expect(device.hostName == "plug.local" && device.displayName == "Kitchen plug" && device.isImportant)
    }

    @Test func aLabelSurvivesARestartThroughTheRegistrysLabels() throws {
        var first = DeviceTable(presence: presence)
        first.updateNeighbour(makeNeighbour("10.0.0.5", macA), now: .zero)
        let id = try #require(first.takeChanges(now: .zero).changes.first?.id)
        _ = first.setLabel(DeviceLabelEdit(name: "Printer"), of: id)
        var bindings: [IdentityKey: DeviceID] = [:]
        for case .bound(let key, let bound) in first.takeIdentityChanges() { bindings[key] = bound }

        var second = DeviceTable(
            presence: presence,
            identities: DeviceIdentities(bindings: bindings),
            labels: DeviceLabels(first.takeLabelChanges())
        )
        second.updateNeighbour(makeNeighbour("10.0.0.5", macA), now: .zero)
        let (changes, events) = second.takeChanges(now: .zero)
        let device = try #require(changes.first?.device)
        #expect(device.id == id && device.displayName == "Printer")
        #expect(events == [.returned(device)])
    }

    @Test func aMergeKeepsTheSurvivorsLabelAndTakesTheMergedDevicesWhereItHasNone() throws {
        var labels = DeviceLabels([
            DeviceID.make(hostName: "a.local"): DeviceLabel(name: "A"),
            DeviceID.make(macAddress: macB): DeviceLabel(name: "B", note: "from B", isImportant: true),
        ])
        labels.merge(DeviceID.make(macAddress: macB), into: DeviceID.make(hostName: "a.local"))
        #expect(
            labels.label(of: DeviceID.make(hostName: "a.local"))
                == DeviceLabel(name: "A", note: "from B", isImportant: true)
        )
        #expect(labels.label(of: DeviceID.make(macAddress: macB)) == .none)
        #expect(
            labels.takeChanges() == [
                DeviceID.make(macAddress: macB): .none,
                DeviceID.make(hostName: "a.local"): DeviceLabel(name: "A", note: "from B", isImportant: true),
            ]
        )
    }

    @Test func aHostThatClaimsALabelledMACOnlyDeviceTakesItsLabelOnTheAutomaticMerge() throws {
        var table = DeviceTable(presence: presence)
        table.updateMDNSHost(
            hostName: "tv.local",
            host: foundDevice("tv.local", addresses: ["10.0.0.9"]),
            now: .zero
        )
        table.updateNeighbour(makeNeighbour("10.0.0.7", macB), now: .zero)
        let changes = table.takeChanges(now: .zero).changes
        let tv = try #require(changes.first { $0.device?.hostName == "tv.local" }?.id)
        let mac = try #require(changes.first { $0.device?.hostName == nil }?.id)
        _ = table.setLabel(DeviceLabelEdit(isImportant: true), of: mac)
        _ = table.takeChanges(now: .zero)

        // The TV announces the MAC-only device's address: the two are one, and the merged device was important.
        table.updateMDNSHost(
            hostName: "tv.local",
            host: foundDevice("tv.local", addresses: ["10.0.0.7", "10.0.0.9"]),
            now: .seconds(1)
        )
        let (merged, events) = table.takeChanges(now: .seconds(1))
        #expect(events.contains { if case .merged(_, into: tv) = $0 { true } else { false } })
        #expect(merged.first { $0.id == tv }?.device?.isImportant == true)
    }

    @Test func anImportantDevicesPresenceLinesAreAtWarning() throws {
        var device = Device(foundDevice("nas.local", addresses: ["10.0.0.5"]))
        device.presenceReason = PresenceReason(.unanswered, ["arp"])
        let quiet = DeviceTable.Event.offline(device).logEntry()
        #expect(quiet.message == .deviceOffline && quiet.message.level == .info && quiet.metadata["important"] == nil)

        device.isImportant = true
        var answered = device
        answered.presenceReason = PresenceReason(.answered, ["arp"])
        let events: [DeviceTable.Event] = [
            .appeared(answered), .online(answered), .returned(answered), .offline(device),
        ]
        for entry in events.map({ $0.logEntry() }) {
            #expect(entry.message.level == .warning, "\(entry)")
            #expect(entry.metadata["important"] == "true")
            #expect(Set(entry.metadata.keys).isSubset(of: entry.message.keys), "\(entry)")
        }
        #expect(
            events.map { $0.logEntry().message.text } == [
                "new device", "device online", "device online", "device offline",
            ]
        )

        let conflict = DeviceTable.Event.addressConflict(
            address: "10.0.0.5",
            macAddress: macA,
            previousMACAddress: macB,
            isImportant: true
        )
        #expect(conflict.logEntry().metadata["important"] == "true")
    }

    @Test func everyNewDeviceIsAtWarningWithAlertNewDevices() {
        let device = Device(foundDevice("nas.local", addresses: ["10.0.0.5"]))
        let entry = DeviceTable.Event.appeared(device).logEntry(alertsNewDevices: true)
        #expect(entry.message == .newDeviceAlert && entry.message.level == .warning)
        #expect(entry.metadata["important"] == nil, "alerted, not important")
        #expect(DeviceTable.Event.appeared(device).logEntry().message.level == .notice)
    }
}
