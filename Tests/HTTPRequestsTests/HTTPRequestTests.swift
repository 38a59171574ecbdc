// Requests through libcurl against a receiver on the loopback: what reaches it, what of the answer is read, and each
// way of getting no answer (refused, a scheme other than HTTP's, a TLS receiver no trust store knows, a receiver that
// says nothing, a cancelled task).

import Foundation
import POSIXText
import TestSupport
import Testing

@testable import HTTPRequests

@Suite(.timeLimit(.minutes(1))) struct HTTPRequestTests {
    static let limits = HTTPLimits(connect: .seconds(5), idle: .seconds(30), whole: .seconds(40), bodyKept: 16)

    @Test func aPostReachesTheReceiverWholeAndTheAnswersStatusHeadersAndBodyStartAreRead() async throws {
        let body = String(repeating: "x", count: 40) + "end"
        let receiver = try FakeReceiver(
            answer: "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 120\r\nContent-Length: \(body.utf8.count)\r\n"
                + "Connection: close\r\n\r\n\(body)"
        )
        let payload = Array(String(repeating: "{\"a\":1}", count: 300).utf8)
        let request = HTTPRequest(
            method: "POST",
            url: receiver.url,
            headers: [("Content-Type", "application/json"), ("X-Test", "1")],
            body: payload
        )

        let answer = try await request.send(limits: Self.limits)

        #expect(answer.status == 429)
        #expect(answer.reason == "Too Many Requests")
        #expect(answer.header("retry-after") == "120")
        #expect(answer.bodyStart == Array(body.utf8.prefix(16)))
        let received = try #require(receiver.received)
        #expect(received.head.first == "POST /hook?topic=a HTTP/1.1")
        #expect(received.head.contains("Content-Type: application/json"))
        #expect(received.head.contains("X-Test: 1"))
        #expect(received.body == payload)
    }

    @Test func anAnswerKeepsItsFirstHundredHeaders() async throws {
        let many = (1...150).map { "X-Filler-\($0): \($0)\r\n" }.joined()
        let receiver = try FakeReceiver(
            answer: "HTTP/1.1 503 Busy\r\nRetry-After: 5\r\n\(many)Content-Length: 0\r\nConnection: close\r\n\r\n"
        )
        let answer = try await HTTPRequest(method: "POST", url: receiver.url, body: [1]).send(limits: Self.limits)
        #expect(answer.status == 503)
        #expect(answer.headers.count == HTTPAnswer.headersKept)
        #expect(answer.header("Retry-After") == "5")
        #expect(answer.headers.last == HTTPHeader(name: "X-Filler-99", value: "99"))
    }

    @Test func aRedirectIsAnswerNotFollowed() async throws {
        let receiver = try FakeReceiver(
            answer: "HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:1/elsewhere\r\nContent-Length: 0\r\n\r\n"
        )
        let answer = try await HTTPRequest(method: "POST", url: receiver.url, body: [1]).send(limits: Self.limits)
        #expect(answer.status == 302)
        #expect(answer.header("Location") == "http://127.0.0.1:1/elsewhere")
    }

    @Test func aRefusedConnectionIsAnErrorWithCurlsCode() async throws {
        let url = "http://127.0.0.1:\(try closedPort())/hook"
        await #expect(throws: HTTPRequestError.self) {
            try await HTTPRequest(method: "POST", url: url, body: [1]).send(limits: Self.limits)
        }
        do {
            _ = try await HTTPRequest(method: "POST", url: url, body: [1]).send(limits: Self.limits)
        } catch let error as HTTPRequestError {
            #expect(error.code == 7)  // CURLE_COULDNT_CONNECT
            #expect(error.description.hasPrefix("HTTP request failed: "))
        }
    }

    @Test func libcurlIsLoadedWhenARequestIsSentAndAMissingOneIsAClearError() throws {
        // Loaded (dlopen) with every function peerscan calls found in it; the package's executable does not link it
        // (Tests/System/package-checks.sh).
        _ = try CurlLibrary.shared.get()
        #expect(POSIXText.fileText("/proc/self/maps")?.contains("/libcurl.so.4") == true)

        let error = #expect(throws: HTTPRequestError.self) { try CurlLibrary(file: "libcurl-absent.so.4") }
        #expect(error?.code == 2)  // CURLE_FAILED_INIT
        #expect(error?.message.hasPrefix("libcurl-absent.so.4 cannot be loaded (") == true)
        #expect(error?.message.hasSuffix("): install libcurl4") == true)
    }

    @Test func noSchemeButHTTPsIsFetched() async throws {
        let error = await #expect(throws: HTTPRequestError.self) {
            try await HTTPRequest(method: "GET", url: "file:///etc/hostname").send(limits: Self.limits)
        }
        #expect(error?.code == 1)  // CURLE_UNSUPPORTED_PROTOCOL
    }

    @Test func aTLSReceiverIsVerifiedAgainstTheTrustStoreAndASelfSignedOneRefused() async throws {
        try await withTemporaryDirectory { directory in
            let receiver = try SelfSignedReceiver(directory: directory)
            defer { receiver.stop() }
            try #require(await eventually(within: .seconds(10)) { receiver.isListening })
            let url = "https://127.0.0.1:\(receiver.port)/"
            let error = await #expect(throws: HTTPRequestError.self) {
                try await HTTPRequest(method: "GET", url: url).send(limits: Self.limits)
            }
            #expect(error?.code == 60)  // CURLE_PEER_FAILED_VERIFICATION
        }
    }

    @Test func aReceiverThatSaysNothingTimesOutAtTheIdleLimit() async throws {
        let receiver = try FakeReceiver(answer: nil)
        var limits = Self.limits
        limits.idle = .seconds(1)
        limits.whole = .seconds(120)  // past the suite's time limit: only the idle limit ends it in time
        let error = await #expect(throws: HTTPRequestError.self) {
            try await HTTPRequest(method: "POST", url: receiver.url, body: [1]).send(limits: limits)
        }
        #expect(error?.code == 28)  // CURLE_OPERATION_TIMEDOUT
        #expect(receiver.received?.body == [1])
        #expect(await eventually(within: .seconds(10)) { receiver.hungUp })
    }

    @Test func aCancelledRequestIsAbortedAndThrowsCancellationError() async throws {
        let receiver = try FakeReceiver(answer: nil)
        let request = HTTPRequest(method: "POST", url: receiver.url, body: [1])
        let task = Task { try await request.send(limits: Self.limits) }
        try #require(await eventually(within: .seconds(10)) { receiver.received != nil })
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(await eventually(within: .seconds(10)) { receiver.hungUp })
    }
}
