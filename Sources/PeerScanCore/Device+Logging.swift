import MonitoringLog
import PeerScanModel

extension Device {
    /// The fields of a device as log metadata (``LogMessage/deviceKeys``): `id`, `name`, `host`, `mac`, `vendor`,
    /// `address` (the first one), `addresses`, `services` (types). A field the device lacks is left out.
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
        return metadata
    }
}

extension DeviceTable.Event {
    /// The event's log line: at warning, with `important=true`, for an important device's arrival and presence (and
    /// for every new device if `alertsNewDevices`).
    func logEntry(alertsNewDevices: Bool = false) -> LogEntry {
        switch self {
        case .appeared(let device):
            return LogEntry(.newDevice, device.logFields).alerting(if: device.isImportant, or: alertsNewDevices)
        case .returned(let device):
            return LogEntry(.deviceOnline, device.logFields.merging(["reason": "returned"]) { $1 })
                .alerting(if: device.isImportant)
        case .online(let device):
            return LogEntry(.deviceOnline, device.logFields.merging(["reason": "answered"]) { $1 })
                .alerting(if: device.isImportant)
        case .offline(let device, let unanswered):
            return LogEntry(.deviceOffline, device.logFields.merging(unanswered.logFields) { $1 })
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
        }
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

extension DeviceTable.Unanswered {
    /// The `reason` of a `device offline` line: `unanswered`, with what was asked and not answered in `asked`
    /// (`arp`, `ndp`, `mdns`); or `withdrawn` for a device judged by its mDNS records alone, which went.
    var logFields: [String: String] {
        let asked = [(arp, "arp"), (ndp, "ndp"), (mdns, "mdns")].filter(\.0).map(\.1)
        guard !asked.isEmpty else { return ["reason": "withdrawn"] }
        return ["reason": "unanswered", "asked": asked.joined(separator: ",")]
    }
}
