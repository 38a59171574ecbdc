import Testing

@testable import AlertDelivery

@Suite struct DestinationParsingTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var url: String
        var name: String
        var kind: Destination.Kind
        var testDescription: String { name }
    }

    @Test(arguments: [
        Case(url: "ntfys://tk_abc123@ntfy.example/alerts", name: "ntfys://ntfy.example/alerts", kind: .ntfy),
        Case(url: "ntfy://user:pass@ntfy.lan:8080/home", name: "ntfy://ntfy.lan:8080/home", kind: .ntfy),
        Case(url: "ntfy://:tk_tok@ntfy.lan/home?priority=high", name: "ntfy://ntfy.lan/home", kind: .ntfy),
        Case(url: "ntfy://mytopic", name: "ntfys://ntfy.sh/mytopic", kind: .ntfy),
        Case(url: "NTFY://ntfy.lan/home?token=tk_x1", name: "ntfy://ntfy.lan/home", kind: .ntfy),
        Case(url: "json://hooks.lan/peerscan/in", name: "json://hooks.lan/peerscan/in", kind: .webhook),
        Case(
            url: "jsons://u:p@hooks.example:8443/x?+X-Key=s3cret",
            name: "jsons://hooks.example:8443/x",
            kind: .webhook
        ),
        Case(url: "json://[fd00::5]:9000/hook", name: "json://[fd00::5]:9000/hook", kind: .webhook),
        Case(url: "gotify://push.lan/AbCdEf123", name: "gotify://push.lan/", kind: .gotify),
        Case(
            url: "gotifys://push.example/sub/path/AbCdEf123?priority=5",
            name: "gotifys://push.example/sub/path",
            kind: .gotify
        ),
        Case(url: "apprise://apprise.lan:8000/mykey?tags=home", name: "apprise://apprise.lan:8000/", kind: .apprise),
        Case(url: "apprises://u:p@apprise.example/base/mykey", name: "apprises://apprise.example/base", kind: .apprise),
    ])
    func parsesApprisesSyntaxAndNamesWithoutSecrets(_ example: Case) throws {
        let destination = try Destination(parsing: example.url)
        #expect(destination.kind == example.kind)
        #expect(destination.name == example.name)
        #expect("\(destination)" == example.name)
    }

    @Test func credentialsComeFromUserinfoOrQuery() throws {
        #expect(try Destination(parsing: "ntfy://tk_abc@h/t").credentials == .bearer(Secret("tk_abc")))
        #expect(try Destination(parsing: "ntfy://:tok@h/t").credentials == .bearer(Secret("tok")))
        #expect(try Destination(parsing: "ntfy://h/t?token=tk_q").credentials == .bearer(Secret("tk_q")))
        #expect(
            try Destination(parsing: "ntfy://u:p%40ss@h/t").credentials == .basic(user: "u", password: Secret("p@ss"))
        )
        #expect(try Destination(parsing: "gotify://h/T0KEN").pathSecret == Secret("T0KEN"))
        #expect(try Destination(parsing: "apprise://h/k/KEY").pathSecret == Secret("KEY"))
        #expect(try Destination(parsing: "ntfy://h/t?priority=5&tags=a,b").priorityOverride == "urgent")
        #expect(try Destination(parsing: "ntfy://h/t?priority=5&tags=a,b").tags == ["a", "b"])
    }

    struct Refusal: Sendable, CustomTestStringConvertible {
        var url: String
        var part: DestinationError.Part
        var code: DestinationError.Code
        var testDescription: String { "\(part) \(code)" }
    }

    @Test(arguments: [
        Refusal(url: "ntfy.lan/topic", part: .scheme, code: .notAURL),
        Refusal(url: "tgram://tk_secret1@bot/chat", part: .scheme, code: .unsupportedScheme),
        Refusal(url: "ntfy://tk_secret1@ntfy.lan", part: .path, code: .missing),
        Refusal(url: "ntfy://tk_secret1@ntfy.lan/a/b", part: .path, code: .invalid),
        Refusal(url: "ntfy://tk_secret1@ntfy.lan:99999/a", part: .port, code: .invalid),
        Refusal(url: "ntfy://ntfy.lan/a?tk_secret1=1", part: .query, code: .unknownOption),
        Refusal(url: "ntfy://ntfy.lan/a?priority=tk_secret1", part: .query, code: .invalid),
        Refusal(url: "gotify://push.lan/", part: .path, code: .missing),
        Refusal(url: "gotify://u:tk_secret1@push.lan/tok", part: .userinfo, code: .unexpected),
        Refusal(url: "apprise://apprise.lan", part: .path, code: .missing),
        Refusal(url: "json:///hook", part: .host, code: .missing),
        Refusal(url: "json://h/x#tk_secret1", part: .url, code: .unexpected),
    ])
    func aBadURLSaysWhichPartAndWhyAndNeverItsSecret(_ refusal: Refusal) {
        do {
            _ = try Destination(parsing: refusal.url)
            Issue.record("accepted \(refusal.url)")
        } catch {
            #expect(error.part == refusal.part)
            #expect(error.code == refusal.code)
            #expect(!error.description.contains("secret1"))
            #expect(!String(reflecting: error).contains("secret1"))
            #expect(error.description.contains(error.part.rawValue))
        }
    }

    @Test func aDestinationNeverPrintsItsSecrets() throws {
        let urls = [
            "ntfys://tk_secret1@ntfy.example/alerts",
            "ntfy://user:secret1@ntfy.lan/a",
            "jsons://u:secret1@hooks.example/x?+Authorization=Bearer%20secret1",
            "gotify://push.lan/secret1",
            "apprises://apprise.example/secret1",
        ]
        for url in urls {
            let destination = try Destination(parsing: url)
            for text in ["\(destination)", String(reflecting: destination), destination.name] {
                #expect(!text.contains("secret1"), "\(text)")
            }
            var dumped = ""
            dump(destination, to: &dumped)
            #expect(!dumped.contains("secret1"), "\(dumped)")
            let redacted = destination.redacting("GET \(url) failed")
            #expect(!redacted.contains("secret1") && redacted.contains("<secret>"), "\(redacted)")
        }
    }

    @Test func twoURLsWithOneNameAreRefused() throws {
        let first = try Destination(parsing: "ntfy://tk_a1@ntfy.lan/t")
        let second = try Destination(parsing: "ntfy://tk_b2@ntfy.lan/t")
        #expect(throws: DestinationError.self) { try Destination.checkNamesDiffer([first, second]) }
        try Destination.checkNamesDiffer([first, try Destination(parsing: "ntfy://ntfy.lan/u")])
    }

    @Test func aTemplateIsReadAtStartAndCheckedThen() throws {
        let good = #"{"text": "{{title}}: {{message}} {{fields.name}}"}"#
        let destination = try Destination(parsing: "json://h/x?template=/etc/t.json") { path in
            #expect(path == "/etc/t.json")
            return good
        }
        #expect(destination.template != nil)
        #expect(destination.name == "json://h/x")
        #expect(throws: DestinationError.self) {
            _ = try Destination(parsing: "json://h/x?template=/t") { _ in #"{"text": {{title}}}"# }
        }
        #expect(throws: DestinationError.self) {
            _ = try Destination(parsing: "json://h/x?template=/t") { _ in #"{"text": "{{secret}}"}"# }
        }
    }
}
