import Foundation
import PeerScanModel
import Testing

@testable import AlertDelivery

/// Each destination's request decoded against the receiver's documented format.
@Suite struct AlertRequestTests {
    static let alert = PeerScanWire.Alert(
        id: "0b0e6c1e-3f4a-4d39-9a53-5f3f5a1f6c01",
        event: "offline",
        created: "2026-11-29T17:00:00.123Z",
        device: "6f1c2d3e-0000-5000-8000-000000000001",
        title: "printer \"hp\" offline",
        message: "printer is offline\n(unanswered)",
        priority: "high",
        tags: ["offline"],
        link: "/devices/6f1c2d3e-0000-5000-8000-000000000001",
        fields: ["name": "printer", "reason": "unanswered"]
    )

    func object(_ request: AlertRequest) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
    }

    /// ntfy's JSON publish: POST to the server's root, the topic in the body; priority 1-5; click the page's link.
    @Test func ntfyIsItsJSONPublish() throws {
        let destination = try Destination(parsing: "ntfys://tk_abc@ntfy.example/alerts?tags=lan")
        let request = destination.request(for: Self.alert, linkBase: "http://peerscan.lan:8737/")
        #expect(request.method == "POST" && request.url == "https://ntfy.example/")
        #expect(request.header("Content-Type") == "application/json")
        #expect(request.header("Authorization") == "Bearer tk_abc")
        #expect(request.header("X-Peerscan-Alert-ID") == Self.alert.id)
        let body = try object(request)
        #expect(body["topic"] as? String == "alerts")
        #expect(body["title"] as? String == Self.alert.title)
        #expect(body["message"] as? String == Self.alert.message)
        #expect(body["priority"] as? Int == 4)
        #expect(body["tags"] as? [String] == ["offline", "lan"])
        #expect(body["click"] as? String == "http://peerscan.lan:8737/devices/6f1c2d3e-0000-5000-8000-000000000001")
        #expect(Set(body.keys) == ["topic", "title", "message", "priority", "tags", "click"])
        #expect(!request.description.contains("tk_abc"))
    }

    @Test func ntfysPriorityOverrideAndBasicAuthentication() throws {
        let destination = try Destination(parsing: "ntfy://me:pw@ntfy.lan:8080/t?priority=min")
        let request = destination.request(for: Self.alert, linkBase: nil)
        #expect(request.url == "http://ntfy.lan:8080/")
        #expect(request.header("Authorization") == "Basic " + Data("me:pw".utf8).base64EncodedString())
        let body = try object(request)
        #expect(body["priority"] as? Int == 1)
        #expect(body["click"] == nil, "no link without --link-base")
    }

    /// The webhook's payload is docs/alerts.md's: every member, `device` and `link` null when absent.
    @Test func theWebhookPayloadIsTheDocumentedOne() throws {
        let destination = try Destination(parsing: "jsons://u:p@hooks.example:8443/in/peerscan?+X-Api-Key=k3y")
        let request = destination.request(for: Self.alert, linkBase: "https://peerscan.example")
        #expect(request.url == "https://hooks.example:8443/in/peerscan")
        #expect(request.header("X-Api-Key") == "k3y")
        let payload = try JSONDecoder().decode(WebhookPayload.self, from: Data(request.body))
        #expect(payload.id == Self.alert.id && payload.event == "offline" && payload.created == Self.alert.created)
        #expect(payload.device == Self.alert.device && payload.priority == "high" && payload.tags == ["offline"])
        #expect(payload.link == "https://peerscan.example/devices/6f1c2d3e-0000-5000-8000-000000000001")
        #expect(payload.fields == Self.alert.fields)
        let keys = Set(try object(request).keys)
        #expect(keys == ["id", "event", "created", "device", "title", "message", "priority", "tags", "link", "fields"])

        var fault = Self.alert
        fault.device = nil
        fault.link = nil
        let faultBody = try object(destination.request(for: fault, linkBase: nil))
        #expect(faultBody["device"] is NSNull && faultBody["link"] is NSNull)
    }

    /// A template's placeholders are filled JSON-escaped: a name with quotes and a line break stays in its string.
    @Test func aTemplateFillsEscapedValues() throws {
        let template =
            #"{"content": "**{{title}}**\n{{message}}", "who": "{{fields.name}}{{fields.none}}", "id": "{{id}}"}"#
        let destination = try Destination(parsing: "json://h/discord?template=/t") { _ in template }
        let body = try object(destination.request(for: Self.alert, linkBase: nil))
        #expect(body["content"] as? String == "**\(Self.alert.title)**\n\(Self.alert.message)")
        #expect(body["who"] as? String == "printer")
        #expect(body["id"] as? String == Self.alert.id)
        #expect(Set(body.keys) == ["content", "who", "id"], "no member added by the alert's text")
    }

    @Test func gotifyIsItsMessageAPI() throws {
        let destination = try Destination(parsing: "gotifys://push.example/sub/AppT0ken")
        let request = destination.request(for: Self.alert, linkBase: "http://p.lan")
        #expect(request.url == "https://push.example/sub/message")
        #expect(request.header("X-Gotify-Key") == "AppT0ken")
        let body = try object(request)
        #expect(body["title"] as? String == Self.alert.title && body["message"] as? String == Self.alert.message)
        #expect(body["priority"] as? Int == 8)
        let extras = try #require(body["extras"] as? [String: [String: [String: String]]])
        #expect(extras["client::notification"]?["click"]?["url"] == "http://p.lan/devices/\(Self.alert.device!)")
        #expect(!request.description.contains("AppT0ken"))
    }

    @Test func appriseIsItsAPIsNotify() throws {
        let destination = try Destination(parsing: "apprise://apprise.lan:8000/cfgKey?tags=home")
        let request = destination.request(for: Self.alert, linkBase: nil)
        #expect(request.url == "http://apprise.lan:8000/notify/cfgKey")
        let body = try object(request)
        #expect(body["title"] as? String == Self.alert.title && body["body"] as? String == Self.alert.message)
        #expect(body["type"] as? String == "warning")
        #expect(body["tag"] as? String == "home")
        #expect(!request.description.contains("cfgKey"))
    }

    @Test func prioritiesMapToEachReceiversScale() {
        #expect(AlertPriority.allCases.map(\.ntfyNumber) == [1, 2, 3, 4, 5])
        #expect(AlertPriority.allCases.map(\.gotifyNumber) == [0, 2, 5, 8, 10])
        #expect(AlertPriority.allCases.map(\.appriseType) == ["info", "info", "info", "warning", "failure"])
        #expect(AlertPriority(parsing: "max") == .urgent && AlertPriority(parsing: "3") == .default)
    }
}
