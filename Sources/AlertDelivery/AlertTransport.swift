import AsyncHTTPClient
import NIOCore
import NIOHTTP1

/// A receiver's answer to a delivery request.
public struct TransportAnswer: Sendable, Equatable {
    /// The HTTP status code.
    public var status: Int
    /// The status line's reason phrase.
    public var reason: String
    /// The `Retry-After` header's value, if any.
    public var retryAfter: String?
    /// The start of the body (at most ``TransportAnswer/bodyLimit`` bytes, as UTF-8 with invalid bytes replaced).
    public var bodyStart: String

    /// The most of the body kept (the answer AckAlert passes on is at most 512 bytes with the status line).
    public static let bodyLimit = 448

    /// An answer.
    public init(status: Int, reason: String = "", retryAfter: String? = nil, bodyStart: String = "") {
        self.status = status
        self.reason = reason
        self.retryAfter = retryAfter
        self.bodyStart = bodyStart
    }

    /// The status line and the body's start, for `AckAlert`'s `answer` (at most 512 bytes).
    public var summary: String {
        let line = "HTTP \(status)" + (reason.isEmpty ? "" : " \(reason)")
        let text = bodyStart.isEmpty ? line : "\(line): \(bodyStart)"
        return String(decoding: Array(text.utf8.prefix(512)), as: UTF8.self)
    }
}

/// What sends a request and waits for the answer: HTTP in the program, a fake in the tests.
public protocol AlertTransport: Sendable {
    /// Sends `request` and returns the receiver's answer.
    ///
    /// - Throws: Any error when no answer came (refused, timed out, TLS, name resolution): a transient failure.
    func send(_ request: AlertRequest) async throws -> TransportAnswer
}

/// HTTP(S) through AsyncHTTPClient: one client (its connection pool, TLS through swift-nio-ssl and the system's trust
/// store) for every destination; redirects are not followed (a destination is where it says it is).
public struct HTTPTransport: AlertTransport {
    /// The client's configuration: no redirects, 10 s to connect, 30 s to read.
    public static var configuration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(30))
        return configuration
    }

    private let client: HTTPClient
    private let deadline: TimeAmount

    /// Runs `body` with a transport over a new client, and shuts the client down after it.
    ///
    /// - Throws: Whatever `body` throws; the client's shutdown error if `body` returned.
    public static func withTransport<Result: Sendable>(
        _ body: (HTTPTransport) async throws -> Result
    ) async throws -> Result {
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let result: Result
        do {
            result = try await body(HTTPTransport(client: client))
        } catch {
            // body's error is the one to report; the client goes with the process either way.
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
        return result
    }

    /// A transport over `client` (shut it down after use); each request waits at most `deadline` whole.
    public init(client: HTTPClient, deadline: TimeAmount = .seconds(60)) {
        self.client = client
        self.deadline = deadline
    }

    public func send(_ request: AlertRequest) async throws -> TransportAnswer {
        var outgoing = HTTPClientRequest(url: request.url)
        outgoing.method = HTTPMethod(rawValue: request.method)
        for (name, value) in request.headers { outgoing.headers.add(name: name, value: value) }
        outgoing.body = .bytes(ByteBuffer(bytes: request.body))
        let response = try await client.execute(outgoing, timeout: deadline)
        var kept: [UInt8] = []
        for try await chunk in response.body {
            // Read the whole body (the connection is reused), keep only its start.
            if kept.count < TransportAnswer.bodyLimit {
                kept += chunk.readableBytesView.prefix(TransportAnswer.bodyLimit - kept.count)
            }
        }
        return TransportAnswer(
            status: Int(response.status.code),
            reason: response.status.reasonPhrase,
            retryAfter: response.headers.first(name: "Retry-After"),
            bodyStart: String(decoding: kept, as: UTF8.self)
        )
    }
}
