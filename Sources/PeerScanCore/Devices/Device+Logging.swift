import MonitoringLog
import PeerScanModel

extension Device {
    /// The fields of a device as log metadata (``LogMessage/deviceKeys``): `id`, `name`, `host`, `mac`, `vendor`,
    /// `address` (the first one), `addresses`, `services` (types), `bluetooth` (the address it advertises under). A
    /// field the device lacks is left out.
    public var logFields: [String: String] {
        var metadata = [
            "id": "\(id)",
            "addresses": addresses.joined(separator: ","),
        ]
        if let displayName { metadata["name"] = displayName }
        if let hostName { metadata["host"] = hostName }
        if !macAddresses.isEmpty { metadata["mac"] = macAddresses.joined(separator: ",") }
        if let vendor { metadata["vendor"] = vendor }
        if let first = addresses.first { metadata["address"] = first }
        if !services.isEmpty { metadata["services"] = Set(services.map(\.type)).sorted().joined(separator: ",") }
        if let bluetooth { metadata["bluetooth"] = bluetooth.address }
        return metadata
    }
}

extension DeviceTable.Event {
    /// The event's log line: at warning, with `important=true`, for an important device's arrival and presence (and
    /// for every new device if `alertsNewDevices`).
    func logEntry(alertsNewDevices: Bool = false) -> LogEntry {
        switch self {
        case .appeared(let device):
            // An ephemeral Bluetooth device is new at every address rotation: never an alert by itself.
            let alerts = alertsNewDevices && device.bluetooth?.isEphemeral != true
            return LogEntry(.newDevice, device.logFields).alerting(if: device.isImportant, or: alerts)
        case .returned(let device):
            return LogEntry(.deviceOnline, device.logFields.merging(device.presenceFields(returned: true)) { $1 })
                .alerting(if: device.isImportant)
        case .online(let device):
            return LogEntry(.deviceOnline, device.logFields.merging(device.presenceFields()) { $1 })
                .alerting(if: device.isImportant)
        case .offline(let device):
            return LogEntry(.deviceOffline, device.logFields.merging(device.presenceFields()) { $1 })
                .alerting(if: device.isImportant)
        case .forgotten(let device):
            return LogEntry(.deviceRemoved, device.logFields)
        case .merged(let device, let into):
            return LogEntry(.deviceMerged, device.logFields.merging(["into": "\(into)"]) { $1 })
        case .split(let key, let id, let newID):
            return LogEntry(.deviceSplit, ["id": "\(id)", "key": "\(key)", "into": "\(newID)"])
        case .addressConflict(let address, let mac, let previous, let isImportant):
            var metadata = ["address": address, "mac": mac, "mac.previous": previous]
            if isImportant { metadata["important"] = "true" }
            return LogEntry(.addressConflict, metadata)
        case .macChanged(let address, let mac, let previous, let device):
            var metadata = ["address": address, "mac": mac, "mac.previous": previous]
            if let device { metadata["id"] = "\(device)" }
            return LogEntry(.macChanged, metadata)
        case .bluetoothAddressUnresolved(let address, let error):
            return LogEntry(.bluetoothAddressUnresolved, ["address": address, "error": error])
        }
    }
}

extension Device {
    /// The `reason` of a presence line and its means: `reason=answered via=arp,ndp` (or `reason=returned` for a device
    /// seen before, with its `via`), `reason=unanswered asked=arp,mdns`, `reason=withdrawn`.
    func presenceFields(returned: Bool = false) -> [String: String] {
        guard let reason = presenceReason else { return returned ? ["reason": "returned"] : [:] }
        var fields = ["reason": returned ? "returned" : reason.kind.rawValue]
        if !reason.means.isEmpty { fields[reason.meansKey] = reason.means.joined(separator: ",") }
        return fields
    }
}

extension LogEntry {
    /// The entry at warning (``LogMessage/alerting(_:)``) if `isImportant` (with `important=true`) or `alerts`.
    fileprivate func alerting(if isImportant: Bool, or alerts: Bool = false) -> LogEntry {
        guard isImportant || alerts else { return self }
        var entry = LogEntry(.alerting(message), metadata)
        if isImportant { entry.metadata["important"] = "true" }
        return entry
    }
}
