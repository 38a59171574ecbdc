import Foundation
import PeerScanModel

/// The HTTP request that delivers one alert to one destination: what ``Destination/request(for:linkBase:)`` builds
/// and the transport sends. Its description names the destination, never its URL (Apprise API's key is in the path)
/// nor its headers (they carry the credentials).
public struct AlertRequest: Sendable, Equatable, CustomStringConvertible {
    /// `POST`.
    public var method: String
    /// The full URL; may hold a secret (Apprise API's key).
    public var url: String
    /// The headers, in order; values may be secrets.
    public var headers: [(name: String, value: String)]
    /// The body (JSON).
    public var body: [UInt8]
    /// The destination's name, for descriptions.
    public var destinationName: String

    public var description: String { "\(method) \(destinationName)" }

    /// The value of the header `name` (case-insensitive), if present.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.method == rhs.method && lhs.url == rhs.url && lhs.body == rhs.body
            && lhs.headers.map { "\($0.name): \($0.value)" } == rhs.headers.map { "\($0.name): \($0.value)" }
            && lhs.destinationName == rhs.destinationName
    }
}

extension Destination {
    /// The header carrying the alert's id on every request: the receiver's idempotency key (ntfy's publish API has
    /// none of its own; the webhook's payload has it as `id` too).
    public static let alertIDHeader = "X-Peerscan-Alert-ID"

    /// The request that delivers `alert` here.
    ///
    /// - Parameters:
    ///   - alert: The alert.
    ///   - linkBase: The page's address (`--link-base`), prefixed to the alert's link; no link without it.
    /// - Returns: The request: ntfy's JSON publish, the webhook's payload (or its template), Gotify's message, Apprise
    ///   API's notify.
    public func request(for alert: PeerScanWire.Alert, linkBase: String?) -> AlertRequest {
        request(for: alert, linkBase: linkBase, payload: nil)
    }

    /// The request that delivers `digest` here as one message: its summary as any alert's request, the webhook's
    /// payload with the list of its alerts; a digest of one alert as that alert's request.
    ///
    /// - Parameters:
    ///   - digest: The digest.
    ///   - linkBase: The page's address (`--link-base`), prefixed to the links; no link without it.
    /// - Returns: The request; its ``Destination/alertIDHeader`` is the digest's key.
    public func request(for digest: AlertDigest, linkBase: String?) -> AlertRequest {
        if digest.isSingle { return request(for: digest.alerts[0], linkBase: linkBase) }
        let payload = WebhookPayload(digest: digest) { Self.absoluteLink($0.link, base: linkBase) }
        return request(for: digest.summary, linkBase: linkBase, payload: payload)
    }

    /// The request for `alert`; a webhook without a template is sent `payload` when given (a digest's).
    private func request(
        for alert: PeerScanWire.Alert,
        linkBase: String?,
        payload digestPayload: WebhookPayload?
    ) -> AlertRequest {
        let link = Self.absoluteLink(alert.link, base: linkBase)
        let priority =
            priorityOverride.flatMap(AlertPriority.init(parsing:))
            ?? AlertPriority(parsing: alert.priority) ?? .default
        var headers: [(name: String, value: String)] = [("Content-Type", "application/json")]
        var path: String
        let body: [UInt8]
        switch kind {
        case .ntfy:
            path = "/"
            body = Self.encoded(
                NtfyMessage(
                    topic: pathSegments[0],
                    title: alert.title,
                    message: alert.message,
                    priority: priority.ntfyNumber,
                    tags: alert.tags + tags,
                    click: link
                )
            )
        case .webhook:
            path = "/" + pathSegments.map(Self.escapedSegment).joined(separator: "/")
            let payload = digestPayload ?? WebhookPayload(alert: alert, link: link)
            if let template {
                body = Array(template.render { payload.value(named: $0) }.utf8)
            } else {
                body = Self.encoded(payload)
            }
            headers += self.headers.map { ($0.name, $0.value.value) }
        case .gotify:
            path = prefixPath + "/message"
            headers.append(("X-Gotify-Key", pathSecret?.value ?? ""))
            body = Self.encoded(
                GotifyMessage(
                    title: alert.title,
                    message: alert.message,
                    priority: priority.gotifyNumber,
                    extras: link.map { ["client::notification": ["click": ["url": $0]]] }
                )
            )
        case .apprise:
            path = prefixPath + "/notify/" + Self.escapedSegment(pathSecret?.value ?? "")
            body = Self.encoded(
                AppriseNotify(
                    title: alert.title,
                    body: link.map { "\(alert.message)\n\($0)" } ?? alert.message,
                    type: priority.appriseType,
                    tag: tags.isEmpty ? nil : tags.joined(separator: ",")
                )
            )
        }
        headers.append((Self.alertIDHeader, alert.id))
        switch credentials {
        case .basic(let user, let password)?:
            headers.append(("Authorization", "Basic " + Data("\(user):\(password.value)".utf8).base64EncodedString()))
        case .bearer(let token)?:
            headers.append(("Authorization", "Bearer \(token.value)"))
        case nil:
            break
        }
        return AlertRequest(method: "POST", url: origin + path, headers: headers, body: body, destinationName: name)
    }

    private var prefixPath: String {
        pathSegments.isEmpty ? "" : "/" + pathSegments.map(Self.escapedSegment).joined(separator: "/")
    }

    static func escapedSegment(_ segment: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove("/")
        return segment.addingPercentEncoding(withAllowedCharacters: allowed) ?? segment
    }

    /// `base` + `link`, one slash between them; `nil` without either.
    static func absoluteLink(_ link: String?, base: String?) -> String? {
        guard let link, let base, !base.isEmpty else { return nil }
        let trimmedBase = base.hasSuffix("/") ? String(base.dropLast()) : base
        return trimmedBase + (link.hasPrefix("/") ? link : "/" + link)
    }

    static func encoded(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // The bodies are plain strings, numbers and arrays of them: encoding cannot fail.
        return Array((try? encoder.encode(value)) ?? Data("{}".utf8))
    }
}

/// ntfy's JSON publish (`POST /` with the topic in the body).
struct NtfyMessage: Encodable {
    var topic: String
    var title: String
    var message: String
    var priority: Int
    var tags: [String]
    var click: String?
}

/// Gotify's `POST /message` body; the click link as its `client::notification` extra.
struct GotifyMessage: Encodable {
    var title: String
    var message: String
    var priority: Int
    var extras: [String: [String: [String: String]]]?
}

/// Apprise API's `POST /notify/KEY` body.
struct AppriseNotify: Encodable {
    var title: String
    var body: String
    var type: String
    var tag: String?
}
