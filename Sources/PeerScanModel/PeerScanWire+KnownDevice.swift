import Foundation

extension PeerScanWire {
    /// A time as io.peerscan writes it: RFC 3339 in UTC, to the second, e.g. `2026-11-24T09:30:00Z`. Every time on
    /// the wire is formatted here.
    public static func timestamp(_ date: Date) -> String { date.formatted(.iso8601) }
}

extension PeerScanWire.Sighting {
    /// The wire form of a sighting.
    public init(_ sighting: KnownDeviceRecord.Sighting) {
        self.init(
            value: sighting.value,
            firstSeen: PeerScanWire.timestamp(sighting.firstSeen),
            lastSeen: PeerScanWire.timestamp(sighting.lastSeen)
        )
    }
}

extension PeerScanWire.KnownDevice {
    /// The wire form of what the registry remembers of a device.
    public init(_ record: KnownDeviceRecord) {
        self.init(
            id: record.id,
            name: record.name,
            present: record.present,
            online: record.online,
            firstSeen: PeerScanWire.timestamp(record.firstSeen),
            lastSeen: PeerScanWire.timestamp(record.lastSeen),
            vendor: record.vendor,
            hostNames: record.hostNames.map(PeerScanWire.Sighting.init),
            macAddresses: record.macAddresses.map(PeerScanWire.Sighting.init),
            addresses: record.addresses.map(PeerScanWire.Sighting.init),
            label: record.label.name,
            note: record.label.note,
            important: record.label.isImportant
        )
    }
}

extension PeerScanWire.Transition {
    /// The wire form of a transition.
    public init(_ transition: PresenceTransition) {
        self.init(
            at: PeerScanWire.timestamp(transition.at),
            online: transition.online,
            reason: transition.reason?.description
        )
    }
}
