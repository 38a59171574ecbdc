import Foundation
import PeerScanModel

/// An alert's content before it is stamped with an identifier and a time: what the policy decided.
public struct AlertContent: Sendable, Equatable {
    /// What it is about.
    public var event: AlertEvent
    /// The device it is about, if any.
    public var device: DeviceID?
    /// A short English title with the device's name.
    public var title: String
    /// A short English message.
    public var message: String
    /// How urgent it is.
    public var priority: AlertPriority
    /// ntfy's tags.
    public var tags: [String]
    /// The device's path on the page, if any.
    public var link: String?
    /// What a template may use.
    public var fields: [String: String]
}

extension AlertContent {
    /// The alert of this content, with its identifier and when it was decided.
    public func stamped(id: UUID, created: Date) -> Alert {
        Alert(
            id: id,
            event: event,
            created: created,
            device: device,
            title: title,
            message: message,
            priority: priority,
            tags: tags,
            link: link,
            fields: fields
        )
    }

    /// A device's alert: `new-device`, `offline` or `online`.
    static func device(_ event: AlertEvent, _ device: Device) -> AlertContent {
        var fields = ["id": "\(device.id)", "name": device.label]
        if let vendor = device.vendor { fields["vendor"] = vendor }
        if let address = device.addresses.first { fields["address"] = address }
        if let mac = device.macAddresses.first { fields["mac"] = mac }
        if let host = device.hostName { fields["host"] = host }
        if let label = device.assignedName { fields["label"] = label }
        if let reason = device.presenceReason { fields["reason"] = reason.description }
        fields["important"] = "\(device.isImportant)"
        let name = device.label
        let (title, message, priority, tag): (String, String, AlertPriority, String)
        switch event {
        case .newDevice:
            let details = [device.vendor, device.addresses.first].compactMap { $0 }
            let suffix = details.isEmpty ? "" : " (\(details.joined(separator: ", ")))"
            (title, message, priority, tag) = (
                "New device: \(name)", "\(name)\(suffix) joined the network.", .default, "new"
            )
        case .offline:
            let reason = device.presenceReason.map { " (\($0))" } ?? ""
            (title, message, priority, tag) = (
                "\(name) is offline", "\(name) stopped answering\(reason).", .high, "red_circle"
            )
        default:
            let reason = device.presenceReason.map { " (\($0))" } ?? ""
            (title, message, priority, tag) = (
                "\(name) is online", "\(name) answers again\(reason).", .default, "green_circle"
            )
        }
        return AlertContent(
            event: event,
            device: device.id,
            title: title,
            message: message,
            priority: priority,
            tags: [tag],
            link: "/devices/\(device.id)",
            fields: fields
        )
    }

    /// The scanner's fault: Avahi failed or is unavailable.
    static func avahiFault(_ state: SourceState) -> AlertContent {
        let reason = state.reason.map { ": \($0)" } ?? ""
        return AlertContent(
            event: .scannerFault,
            device: nil,
            title: "Scanner fault: Avahi \(state.name)",
            message: "peerscand cannot browse mDNS (avahi-daemon \(state.name)\(reason)).",
            priority: .high,
            tags: ["warning"],
            link: nil,
            fields: ["fault": "avahi", "state": state.name, "reason": state.reason ?? ""]
        )
    }

    /// The scanner's fault: a system limit reached.
    static func limitReached(_ limit: SystemLimit) -> AlertContent {
        AlertContent(
            event: .scannerFault,
            device: nil,
            title: "Scanner limit reached: \(limit.name)",
            message: "\(limit.name) holds \(limit.value) (\(limit.setting)): what is beyond it may not be seen.",
            priority: .high,
            tags: ["warning"],
            link: nil,
            fields: ["fault": "limit", "limit": limit.name, "value": "\(limit.value)", "setting": limit.setting]
        )
    }

    /// An address conflict, an evil twin or a new access point.
    static func notice(_ event: AlertEvent, fields: [String: String]) -> AlertContent {
        let ssid = fields["ssid"] ?? ""
        let bssid = fields["bssid"] ?? ""
        let (title, message, priority, tag): (String, String, AlertPriority, String)
        switch event {
        case .addressConflict:
            let address = fields["address"] ?? ""
            let macs = "\(fields["mac"] ?? "") and \(fields["mac.previous"] ?? "")"
            (title, message, priority, tag) = (
                "Address conflict: \(address)", "\(address) is claimed by \(macs).", .high, "warning"
            )
        case .evilTwin:
            let reason = fields["reason"].map { " (\($0))" } ?? ""
            (title, message, priority, tag) = (
                "Possible evil twin: \(ssid)", "Access point \(bssid) of \(ssid)\(reason).", .urgent, "rotating_light"
            )
        default:
            (title, message, priority, tag) = (
                "New access point: \(ssid)", "Access point \(bssid) of \(ssid) is new.", .default, "satellite"
            )
        }
        var templateFields = fields
        templateFields["name"] = event == .addressConflict ? fields["address"] ?? "" : ssid
        return AlertContent(
            event: event,
            device: nil,
            title: title,
            message: message,
            priority: priority,
            tags: [tag],
            link: nil,
            fields: templateFields
        )
    }

    /// A test alert (`peerscanctl notify test`).
    public static let test = AlertContent(
        event: .test,
        device: nil,
        title: "peerscan test alert",
        message: "If you read this, alerts reach this destination.",
        priority: .low,
        tags: ["test_tube"],
        link: nil,
        fields: [:]
    )
}
