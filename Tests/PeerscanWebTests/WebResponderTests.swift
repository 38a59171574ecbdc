import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import Testing

@testable import PeerscanWeb

/// The responder's checks before it calls peerscand (there is none here: a call gets 503).
@Suite struct WebResponderTests {
    let responder = WebResponder(
        policy: AccessPolicy(token: BearerToken("tok"), hosts: HostAllowlist()),
        socketPath: "/nonexistent/io.peerscan",
        logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
    )

    private func status(
        _ method: HTTPRequest.Method,
        _ path: String,
        host: String = "localhost",
        fields: HTTPFields = [:],
        body: String = "",
        loopback: Bool = true
    ) async -> (HTTPResponse.Status, HTTPFields) {
        var request = Request(
            head: HTTPRequest(method: method, scheme: nil, authority: host, path: path, headerFields: fields),
            body: RequestBody(buffer: ByteBuffer(string: body))
        )
        let response = await responder.response(to: &request, listenerIsLoopback: loopback)
        return (response.status, response.headers)
    }

    private let json: HTTPFields = [.authorization: "Bearer tok", .contentType: "application/json"]

    @Test func writesNeedJSON() async {
        let form: HTTPFields = [.authorization: "Bearer tok", .contentType: "application/x-www-form-urlencoded"]
        #expect(await status(.post, "/api/SetScanning", fields: form, body: "enabled=0").0 == .unsupportedMediaType)
        #expect(
            await status(.post, "/api/SetScanning", fields: [.authorization: "Bearer tok"]).0 == .unsupportedMediaType
        )
        #expect(await status(.post, "/api/SetScanning", fields: json, body: "[true]").0 == .badRequest)
        #expect(await status(.post, "/api/SetScanning", fields: json, body: "{").0 == .badRequest)
    }

    @Test func bodiesAreBounded() async {
        let large = "{\"id\":\"" + String(repeating: "a", count: WebResponder.maximumBodySize) + "\"}"
        #expect(await status(.post, "/api/SetDeviceLabel", fields: json, body: large).0 == .contentTooLarge)
    }

    @Test func aWellFormedWriteReachesTheDaemonCall() async {
        // No peerscand here: 503 shows every check before the call passed.
        #expect(
            await status(.post, "/api/SetScanning", fields: json, body: #"{"enabled":true}"#).0 == .serviceUnavailable
        )
    }

    @Test func theChecksComeInOrderHostThenToken() async {
        #expect(await status(.post, "/api/SetScanning", host: "evil.example", fields: json).0 == .misdirectedRequest)
        let (unauthorized, headers) = await status(
            .post,
            "/api/SetScanning",
            fields: [.contentType: "application/json"]
        )
        #expect(unauthorized == .unauthorized && headers[.wwwAuthenticate] == "Bearer")
        #expect(await status(.get, "/", loopback: false).0 == .ok, "the page's own files: no data, no token")
        #expect(await status(.get, "/api/known", loopback: false).0 == .unauthorized)
        #expect(
            await status(.get, "/api/known", fields: [.authorization: "Bearer tok"], loopback: false).0 != .unauthorized
        )
    }

    @Test func everyResponseHasTheSecurityHeaders() async {
        for (method, path) in [
            (HTTPRequest.Method.get, "/"), (.get, "/api/Nope"), (.post, "/api/SetScanning"),
            (.delete, "/"), (.get, "/assets/index.html"),
        ] {
            let (_, headers) = await status(method, path)
            #expect(headers[HTTPField.Name("Content-Security-Policy")!] == SecurityHeaders.contentSecurityPolicy)
            #expect(headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
        }
        #expect(await status(.get, "/api/Nope").1[.cacheControl] == "no-store")
        #expect(await status(.get, "/assets/index.html").1[.contentType] == "text/html; charset=utf-8")
    }
}
