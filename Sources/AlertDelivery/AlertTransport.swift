import HTTPRequests

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

/// HTTP(S) through libcurl (``HTTPRequests``): TLS with the system's OpenSSL and trust store; redirects are not
/// followed (a destination is where it says it is).
public struct HTTPTransport: AlertTransport {
    /// 10 s to connect, 30 s without a byte, 60 s for the whole request; the body's start kept.
    public static let limits = HTTPLimits(
        connect: .seconds(10),
        idle: .seconds(30),
        whole: .seconds(60),
        bodyKept: TransportAnswer.bodyLimit
    )

    private let limits: HTTPLimits

    /// A transport whose requests keep to `limits`.
    public init(limits: HTTPLimits = HTTPTransport.limits) {
        self.limits = limits
    }

    public func send(_ request: AlertRequest) async throws -> TransportAnswer {
        let outgoing = HTTPRequest(
            method: request.method,
            url: request.url,
            headers: request.headers,
            body: request.body
        )
        let answer = try await outgoing.send(limits: limits)
        return TransportAnswer(
            status: answer.status,
            reason: answer.reason,
            retryAfter: answer.header("Retry-After"),
            bodyStart: String(decoding: answer.bodyStart, as: UTF8.self)
        )
    }
}
