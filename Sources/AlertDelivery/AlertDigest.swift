import Foundation
import PeerScanModel
internal import SystemCrypto

/// The alerts a destination's digest window collected, sent as one message (docs/alerts.md, "Digest").
///
/// Its ``summary`` is an alert of its own that every destination renders as it renders any alert: the title
/// `peerscan: 7 alerts`, one line per alert oldest first (at most ``listedLimit``), the highest priority of them, the
/// tags of all, and the link of their one device (the page's root when they are about several). The webhook's payload
/// adds the list of the alerts in full (``WebhookPayload/alerts``).
///
/// The idempotency key (``key``) is a name-based UUID of the alerts' ids, sorted: the same alerts give the same key
/// in any order, after any retry or restart. A window that collected one alert sends it as itself.
public struct AlertDigest: Sendable, Equatable {
    /// The most alerts one digest carries; a window that collected more sends several digests, oldest first.
    public static let maximumAlerts = 100
    /// The most alerts a digest's text lists, one line each; the rest are counted (`… and 80 more`) and are in the
    /// webhook's list. 20 lines of at most ``lineLimit`` bytes stay within ntfy's message limit (4,096 bytes).
    public static let listedLimit = 20
    /// The longest line of a digest's text, in UTF-8 bytes (longer lines end with `…`).
    public static let lineLimit = 180
    /// The event of a digest's summary (never an alert's).
    public static let event = "digest"
    /// The events never held for a digest: the scanner's faults (the one alert that says alerts may be missing) and
    /// `test` (`peerscanctl notify test` waits for the answer).
    public static let immediateEvents: Set<String> = ["scanner-fault", "test"]

    /// The namespace of digests' keys: the version 5 UUID of `alert-digest` in peerscan's namespace (that of
    /// `peerscan.io` in RFC 9562's DNS namespace), as device ids are derived.
    static let keyNamespace = UUID(uuidString: "78e203b7-f6cd-5a54-b611-847460cf52ac")!

    /// The alerts, oldest first (1 to ``maximumAlerts``).
    public let alerts: [PeerScanWire.Alert]
    /// The idempotency key: a lowercase UUID derived from the alerts' ids (``key(ids:)``); a digest of one alert is
    /// sent as that alert, with its own id.
    public let key: String

    /// A digest of `alerts`.
    ///
    /// - Precondition: `alerts` holds 1 to ``maximumAlerts`` alerts.
    public init(_ alerts: [PeerScanWire.Alert]) {
        precondition((1...Self.maximumAlerts).contains(alerts.count), "a digest of \(alerts.count) alerts")
        self.alerts = alerts
        self.key = alerts.count == 1 ? alerts[0].id : Self.key(ids: alerts.map(\.id))
    }

    /// Whether this digest is one alert, sent as itself.
    public var isSingle: Bool { alerts.count == 1 }

    /// Whether `alert` is sent at once even to a destination with a digest: see ``immediateEvents``.
    public static func isSentAtOnce(_ alert: PeerScanWire.Alert) -> Bool { immediateEvents.contains(alert.event) }

    /// `alerts` in digests of at most ``maximumAlerts``, in order.
    ///
    /// - Complexity: O(n) in the number of alerts.
    public static func digests(of alerts: [PeerScanWire.Alert]) -> [AlertDigest] {
        stride(from: 0, to: alerts.count, by: maximumAlerts).map {
            AlertDigest(Array(alerts[$0..<min($0 + maximumAlerts, alerts.count)]))
        }
    }

    /// The key of a digest of these ids: the version 5 UUID (SHA-1) of the ids, lowercased, sorted and joined with
    /// commas, in ``keyNamespace``.
    ///
    /// The SHA-1 comes from the system's libcrypto, which fails only when it is broken (out of memory, or an OpenSSL
    /// configuration without a provider of SHA-1); no other key would be right, so that traps, as device ids do.
    ///
    /// - Complexity: O(n log n) in the number of ids.
    public static func key(ids: [String]) -> String {
        let name = ids.map { $0.lowercased() }.sorted().joined(separator: ",")
        do {
            return try NameBasedUUID.make(namespace: keyNamespace, name: name.utf8).uuidString.lowercased()
        } catch {
            fatalError("a digest's key needs SHA-1 from the system's libcrypto: \(error)")
        }
    }

    /// The digest as one alert: what ntfy, Gotify, Apprise API and a webhook's template are sent.
    ///
    /// `id` is ``key``, `event` `digest`, `created` the newest alert's; `device` and `link` the alerts' one device
    /// (`link` `/`, the page's root, when they are about several or none); `priority` the highest; `tags` every
    /// alert's, once each; `fields` `count`.
    public var summary: PeerScanWire.Alert {
        let devices = Set(alerts.map(\.device))
        let device = devices.count == 1 ? alerts[0].device : nil
        let link = device != nil ? alerts[0].link ?? "/" : "/"
        let priority =
            alerts.compactMap { AlertPriority(parsing: $0.priority) }.max { $0.ntfyNumber < $1.ntfyNumber } ?? .default
        var tags: [String] = []
        for tag in alerts.flatMap(\.tags) where !tags.contains(tag) { tags.append(tag) }
        return PeerScanWire.Alert(
            id: key,
            event: Self.event,
            created: alerts.map(\.created).max() ?? "",
            device: device,
            title: "peerscan: \(alerts.count) alerts",
            message: text,
            priority: priority.rawValue,
            tags: tags,
            link: link,
            fields: ["count": "\(alerts.count)"]
        )
    }

    /// One line per alert, oldest first — `TITLE: MESSAGE`, line breaks made spaces, at most ``lineLimit`` bytes —
    /// the first ``listedLimit`` of them, then `… and N more` if there are more.
    var text: String {
        var lines = alerts.prefix(Self.listedLimit).map { alert in
            Self.line("\(alert.title): \(alert.message)")
        }
        if alerts.count > Self.listedLimit { lines.append("… and \(alerts.count - Self.listedLimit) more") }
        return lines.joined(separator: "\n")
    }

    static func line(_ text: String) -> String {
        let flat = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        guard flat.utf8.count > lineLimit else { return flat }
        var kept = ""
        for character in flat {
            if kept.utf8.count + character.utf8.count > lineLimit - "…".utf8.count { break }
            kept.append(character)
        }
        return kept + "…"
    }
}
