import Foundation
import PeerScanModel
import TestSupport
import Testing

@testable import AlertDelivery

/// The digest's parts as values: its window on a manual clock's instants, its key, its text, and its request to each
/// kind of destination (docs/alerts.md, "Digest").
@Suite struct AlertDigestTests {
    static func alert(
        _ number: Int,
        event: String = "offline",
        device: String? = "d1",
        priority: String = "default",
        title: String? = nil
    ) -> PeerScanWire.Alert {
        PeerScanWire.Alert(
            id: "00000000-0000-4000-8000-\(String(repeating: "0", count: 12 - "\(number)".count))\(number)",
            event: event,
            created: "2026-11-29T17:00:0\(number % 10).000Z",
            device: device,
            title: title ?? "host\(number) is \(event)",
            message: "host\(number) stopped answering\n(unanswered).",
            priority: priority,
            tags: [event == "offline" ? "red_circle" : "green_circle"],
            link: device.map { "/devices/\($0)" }
        )
    }

    static let three = [
        alert(1, priority: "default"), alert(2, device: "d2", priority: "high"), alert(3, event: "online"),
    ]

    @Test(arguments: [
        ("15m", Duration.seconds(900)), ("1h", .seconds(3600)), ("90s", .seconds(90)), ("900", .seconds(900)),
        (" 2M ", .seconds(120)), ("off", .zero), ("0", .zero), ("24h", .seconds(86400)),
    ])
    func aWindowIsAWholeNumberWithAUnit(text: String, expected: Duration) {
        #expect(DigestInterval.duration(parsing: text) == expected)
    }

    @Test(arguments: ["", "m", "15x", "-5m", "+5m", "1.5h", "25h", "15 m", "1d", "9999999"])
    func anythingElseIsNoWindow(text: String) {
        #expect(DigestInterval.duration(parsing: text) == nil)
    }

    /// `?digest=` is an option of every scheme, not part of the name; `off` turns `--digest` off for that one.
    @Test func aDestinationsDigestOverridesTheGlobalOne() throws {
        let ntfy = try Destination(parsing: "ntfy://ntfy.lan/t?digest=15m")
        #expect(ntfy.digest == .seconds(900) && ntfy.name == "ntfy://ntfy.lan/t")
        #expect(ntfy.digestWindow(global: nil) == .seconds(900))
        #expect(ntfy.digestWindow(global: .seconds(60)) == .seconds(900))
        let off = try Destination(parsing: "json://hooks.lan/in?digest=off")
        #expect(off.digestWindow(global: .seconds(60)) == nil)
        let plain = try Destination(parsing: "gotify://push.lan/T0ken")
        #expect(plain.digestWindow(global: .seconds(60)) == .seconds(60) && plain.digestWindow(global: nil) == nil)
        #expect(try Destination(parsing: "apprise://a.lan/k?digest=1h").digest == .seconds(3600))
        #expect(throws: DestinationError.self) { try Destination(parsing: "ntfy://ntfy.lan/t?digest=soon") }
        do {
            _ = try Destination(parsing: "ntfy://ntfy.lan/t?digest=tk_secret")
        } catch {
            #expect(error.part == .query && !error.description.contains("tk_secret"))
        }
    }

    /// The first alert opens the window for its length; the next ones join it without moving its end; once closed,
    /// the next alert opens a new one from its own time.
    @Test func theWindowCollectsFromItsFirstAlertForItsLength() {
        let clock = ManualClock()
        var window = DigestWindow<ManualClock.Instant>(length: .seconds(60))
        #expect(window.collect(Self.three[0], at: clock.now)?.offset == .seconds(60))
        clock.advance(by: .seconds(59))
        #expect(window.collect(Self.three[1], at: clock.now) == nil, "joins: the end stays")
        #expect(window.collect(Self.three[2], at: clock.now) == nil)
        #expect(window.end?.offset == .seconds(60) && window.collected.count == 3)
        let digests = window.close()
        #expect(digests.map { $0.alerts.map(\.id) } == [Self.three.map(\.id)], "one digest, oldest first")
        #expect(window.end == nil && window.collected.isEmpty)
        clock.advance(by: .seconds(41))
        #expect(window.collect(Self.alert(4), at: clock.now)?.offset == .seconds(160), "a new window from its alert")
    }

    @Test func aWindowOfMoreThanADigestsBoundSendsSeveral() {
        var window = DigestWindow<ManualClock.Instant>(length: .seconds(1))
        let alerts = (1...250).map { Self.alert($0) }
        for alert in alerts { _ = window.collect(alert, at: ManualClock().now) }
        let digests = window.close()
        #expect(digests.map(\.alerts.count) == [100, 100, 50])
        #expect(digests.flatMap(\.alerts).map(\.id) == alerts.map(\.id), "every alert once, in order")
    }

    /// The key is the same for the same alerts in any order (a retry, a restart), another for other alerts; a
    /// version 5 UUID, lowercase. One alert is sent as itself, with its own id.
    @Test func theKeyIsStableForTheSameAlerts() throws {
        let ids = Self.three.map(\.id)
        let key = AlertDigest.key(ids: ids)
        #expect(AlertDigest(Self.three).key == key)
        #expect(AlertDigest([Self.three[2], Self.three[0], Self.three[1]]).key == key)
        #expect(AlertDigest.key(ids: ids.map { $0.uppercased() }) == key)
        #expect(AlertDigest.key(ids: Array(ids.dropLast())) != key)
        #expect(AlertDigest.key(ids: ids + [Self.alert(4).id]) != key)
        let uuid = try #require(UUID(uuidString: key))
        #expect(key == uuid.uuidString.lowercased() && key.dropFirst(14).first == "5")
        #expect(!ids.contains(key))
        #expect(AlertDigest([Self.three[1]]).key == Self.three[1].id)
    }

    @Test func theSummaryIsOneAlertOfThemAll() {
        let summary = AlertDigest(Self.three).summary
        #expect(summary.event == "digest" && summary.title == "peerscan: 3 alerts")
        #expect(summary.priority == "high", "the highest of default, high, default")
        #expect(
            summary.message.split(separator: "\n")
                == [
                    "host1 is offline: host1 stopped answering (unanswered).",
                    "host2 is offline: host2 stopped answering (unanswered).",
                    "host3 is online: host3 stopped answering (unanswered).",
                ]
        )
        #expect(summary.tags == ["red_circle", "green_circle"])
        #expect(summary.device == nil && summary.link == "/", "several devices: the page's root")
        #expect(summary.created == "2026-11-29T17:00:03.000Z" && summary.fields == ["count": "3"])
        let oneDevice = AlertDigest([Self.alert(1), Self.alert(2, event: "online")]).summary
        #expect(oneDevice.device == "d1" && oneDevice.link == "/devices/d1")
    }

    /// At most 20 lines, each at most 180 bytes; the rest counted: a full digest stays within ntfy's 4,096 bytes.
    @Test func theTextListsABoundedNumberOfAlerts() {
        let long = String(repeating: "ä", count: 300)
        let alerts = (1...AlertDigest.maximumAlerts).map { Self.alert($0, title: long) }
        let text = AlertDigest(alerts).summary.message
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == AlertDigest.listedLimit + 1)
        #expect(lines.last == "… and 80 more")
        #expect(lines.dropLast().allSatisfy { $0.utf8.count <= AlertDigest.lineLimit && $0.hasSuffix("…") })
        #expect(text.utf8.count < 4096)
        #expect(AlertDigest(Array(alerts.prefix(20))).summary.message.split(separator: "\n").count == 20)
    }

    @Test func theScannersFaultsAndTestsAreSentAtOnce() {
        #expect(AlertDigest.isSentAtOnce(Self.alert(1, event: "scanner-fault", device: nil)))
        #expect(AlertDigest.isSentAtOnce(Self.alert(1, event: "test", device: nil)))
        for event in ["new-device", "offline", "online", "address-conflict", "evil-twin", "new-access-point"] {
            #expect(!AlertDigest.isSentAtOnce(Self.alert(1, event: event)))
        }
    }
}

/// A digest's request to each kind of destination, decoded against its format.
@Suite struct AlertDigestRequestTests {
    let digest = AlertDigest(AlertDigestTests.three)

    func object(_ request: AlertRequest) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
    }

    @Test func ntfyGetsOneMessage() throws {
        let request = try Destination(parsing: "ntfy://ntfy.lan/t?tags=lan")
            .request(for: digest, linkBase: "http://p.lan")
        #expect(request.header(Destination.alertIDHeader) == digest.key)
        let body = try object(request)
        #expect(body["title"] as? String == "peerscan: 3 alerts")
        #expect(body["message"] as? String == digest.summary.message)
        #expect(body["priority"] as? Int == 4)
        #expect(body["tags"] as? [String] == ["red_circle", "green_circle", "lan"])
        #expect(body["click"] as? String == "http://p.lan/")
    }

    /// The webhook's digest payload: the summary's members (id: the key, event: digest) and `alerts`, each alert's
    /// own payload, oldest first, links absolute.
    @Test func theWebhookGetsTheListOfAlerts() throws {
        let request = try Destination(parsing: "json://hooks.lan/in").request(for: digest, linkBase: "http://p.lan")
        let payload = try JSONDecoder().decode(WebhookPayload.self, from: Data(request.body))
        #expect(payload.id == digest.key && payload.event == "digest" && payload.title == "peerscan: 3 alerts")
        #expect(payload.priority == "high" && payload.link == "http://p.lan/" && payload.device == nil)
        let alerts = try #require(payload.alerts)
        #expect(alerts.map(\.id) == AlertDigestTests.three.map(\.id))
        #expect(alerts[1] == WebhookPayload(alert: AlertDigestTests.three[1], link: "http://p.lan/devices/d2"))
        #expect(alerts.allSatisfy { $0.alerts == nil })
        let keys = Set(try object(request).keys)
        #expect(
            keys == [
                "id", "event", "created", "device", "title", "message", "priority", "tags", "link", "fields", "alerts",
            ]
        )
        let single = try Destination(parsing: "json://hooks.lan/in")
            .request(for: AlertDigest([AlertDigestTests.three[0]]), linkBase: nil)
        #expect(!Set(try object(single).keys).contains("alerts"), "one alert: its own payload")
        #expect(single.header(Destination.alertIDHeader) == AlertDigestTests.three[0].id)
    }

    @Test func aTemplateIsFilledWithTheSummary() throws {
        let destination = try Destination(parsing: "json://h/chat?template=/t") { _ in
            #"{"text": "{{title}}\n{{message}}", "key": "{{id}}", "event": "{{event}}"}"#
        }
        let body = try object(destination.request(for: digest, linkBase: nil))
        #expect(body["text"] as? String == "peerscan: 3 alerts\n\(digest.summary.message)")
        #expect(body["key"] as? String == digest.key && body["event"] as? String == "digest")
    }

    @Test func gotifyAndAppriseGetOneMessage() throws {
        let gotify = try object(
            try Destination(parsing: "gotify://push.lan/T0ken").request(for: digest, linkBase: "http://p.lan")
        )
        #expect(gotify["title"] as? String == "peerscan: 3 alerts" && gotify["priority"] as? Int == 8)
        #expect(gotify["message"] as? String == digest.summary.message)
        let apprise = try object(
            try Destination(parsing: "apprise://a.lan/k").request(for: digest, linkBase: "http://p.lan")
        )
        #expect(apprise["body"] as? String == digest.summary.message + "\nhttp://p.lan/")
        #expect(apprise["type"] as? String == "warning")
    }
}
