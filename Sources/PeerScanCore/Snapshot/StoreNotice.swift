import MonitoringLog
import PeerScanModel

/// What a batch decided that is not an item's change, for a subscriber that acts on events (the alert policy): a
/// device seen for the first time, an address conflict, an access point of a known network that is new or a possible
/// evil twin. The store reports them through ``StoreRecorders/notices`` before the batch's changeset is published;
/// nothing flows back.
public enum StoreNotice: Hashable, Sendable {
    /// A device seen for the first time (since it was last forgotten), as first published.
    case newDevice(Device)
    /// One address claimed by two MAC addresses: the `address conflict` line's fields (`address`, `mac`,
    /// `mac.previous`); `isImportant` if the device of either is important.
    case addressConflict(fields: [String: String], isImportant: Bool)
    /// An access point of a known SSID that is not one of its access points vouched for: the `new access point`
    /// line's fields.
    case newAccessPoint(fields: [String: String])
    /// A possible evil twin: the `possible evil twin` line's fields (`ssid`, `bssid`, `reason`, …).
    case possibleEvilTwin(fields: [String: String])
    /// A device turned out to be another's (a MAC-only device an mDNS host's, or a person's merge): it goes from the
    /// list in favour of `into`, and was not a device of its own.
    case merged(DeviceID, into: DeviceID)

    /// The notice of a device table's event, `nil` for those that are items' changes or none of a subscriber's
    /// business.
    init?(_ event: DeviceTable.Event) {
        switch event {
        case .appeared(let device):
            self = .newDevice(device)
        case .merged(let device, let into):
            self = .merged(device.id, into: into)
        case .addressConflict(let address, let mac, let previous, let isImportant):
            self = .addressConflict(
                fields: ["address": address, "mac": mac, "mac.previous": previous],
                isImportant: isImportant
            )
        default:
            return nil
        }
    }

    /// The notice of a Wi-Fi table's log line (the table decides in log lines), `nil` for the others.
    init?(wifi entry: LogEntry) {
        switch entry.message {
        case .newAccessPoint: self = .newAccessPoint(fields: entry.metadata)
        case .possibleEvilTwin: self = .possibleEvilTwin(fields: entry.metadata)
        default: return nil
        }
    }
}
