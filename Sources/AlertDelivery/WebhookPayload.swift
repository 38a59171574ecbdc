import PeerScanModel

/// The webhook's JSON payload (`json://`, `jsons://`), documented in docs/alerts.md: the alert as peerscand wrote it,
/// its link made absolute with `--link-base`. Every member is present; `device` and `link` may be `null`. A digest's
/// payload has the same members, and `alerts`.
///
/// ```json
/// {"created":"2026-11-29T17:00:00.000Z","device":"6f1c…","event":"offline","fields":{"name":"printer"},
///  "id":"0b0e…","link":"http://peerscan.lan:8737/devices/6f1c…","message":"printer is offline (unanswered)",
///  "priority":"high","tags":["offline"],"title":"printer offline"}
/// ```
public struct WebhookPayload: Codable, Sendable, Equatable {
    public var id: String
    public var event: String
    public var created: String
    public var device: String?
    public var title: String
    public var message: String
    public var priority: String
    public var tags: [String]
    public var link: String?
    public var fields: [String: String]
    /// A digest's alerts in full, oldest first (`event` is `digest`, `id` the digest's key); absent from an alert's
    /// payload.
    public var alerts: [WebhookPayload]?

    /// The payload of `alert`, its link absolute (`nil` without a link base).
    public init(alert: PeerScanWire.Alert, link: String?) {
        id = alert.id
        event = alert.event
        created = alert.created
        device = alert.device
        title = alert.title
        message = alert.message
        priority = alert.priority
        tags = alert.tags
        self.link = link
        fields = alert.fields
        alerts = nil
    }

    /// The payload of a digest: its summary's members, and the list of its alerts, each as its own payload.
    public init(digest: AlertDigest, link: (PeerScanWire.Alert) -> String?) {
        let summary = digest.summary
        self.init(alert: summary, link: link(summary))
        alerts = digest.alerts.map { WebhookPayload(alert: $0, link: link($0)) }
    }

    enum CodingKeys: String, CodingKey {
        case id, event, created, device, title, message, priority, tags, link, fields, alerts
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(event, forKey: .event)
        try container.encode(created, forKey: .created)
        try container.encode(device, forKey: .device)  // null, not absent
        try container.encode(title, forKey: .title)
        try container.encode(message, forKey: .message)
        try container.encode(priority, forKey: .priority)
        try container.encode(tags, forKey: .tags)
        try container.encode(link, forKey: .link)
        try container.encode(fields, forKey: .fields)
        try container.encodeIfPresent(alerts, forKey: .alerts)
    }

    /// A template placeholder's value: a member by name, `fields.NAME`, `tags` joined with `, `; empty when absent.
    public func value(named name: String) -> String {
        switch name {
        case "id": id
        case "event": event
        case "created": created
        case "device": device ?? ""
        case "title": title
        case "message": message
        case "priority": priority
        case "tags": tags.joined(separator: ", ")
        case "link": link ?? ""
        default: name.hasPrefix("fields.") ? fields[String(name.dropFirst(7))] ?? "" : ""
        }
    }
}
