/// An HTTP request: what ``HTTPRequest/send(limits:)`` sends.
public struct HTTPRequest: Sendable {
    /// The method (`POST`, `GET`, …).
    public var method: String
    /// The full URL, `http://` or `https://` (no other scheme is fetched).
    public var url: String
    /// The headers, in order.
    public var headers: [(name: String, value: String)]
    /// The body; none is sent when empty.
    public var body: [UInt8]

    /// A request.
    public init(method: String, url: String, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// How long a request may take and how much of the answer is kept.
public struct HTTPLimits: Sendable, Equatable {
    /// The most a connection (the name's resolution and TLS included) may take.
    public var connect: Duration
    /// The most the exchange may go without a byte either way once connected (a receiver that hangs).
    public var idle: Duration
    /// The most the whole request may take.
    public var whole: Duration
    /// The most of the answer's body kept (the rest is read and dropped, so that the answer is complete).
    public var bodyKept: Int

    /// Limits.
    public init(connect: Duration, idle: Duration, whole: Duration, bodyKept: Int) {
        self.connect = connect
        self.idle = idle
        self.whole = whole
        self.bodyKept = bodyKept
    }
}

/// A receiver's answer.
public struct HTTPAnswer: Sendable, Equatable {
    /// The status code.
    public var status: Int
    /// The status line's reason phrase (empty when there is none, as in HTTP/2).
    public var reason: String
    /// The headers of the final answer, in order, names as the receiver wrote them; the first ``headersKept`` only.
    public var headers: [HTTPHeader]
    /// The body's first ``HTTPLimits/bodyKept`` bytes.
    public var bodyStart: [UInt8]

    /// The most headers an answer keeps: a receiver cannot grow one without bound (libcurl bounds each line).
    public static let headersKept = 100

    /// The value of the header `name` (case-insensitive), if present.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }
}

/// One header of an answer.
public struct HTTPHeader: Sendable, Equatable {
    /// The name, as the receiver wrote it.
    public var name: String
    /// The value, without the surrounding white space.
    public var value: String
}

/// Why a request got no answer: libcurl's error code and message (refused, timed out, name resolution, TLS, …).
public struct HTTPRequestError: Error, Equatable, CustomStringConvertible {
    /// libcurl's `CURLcode`.
    public var code: Int
    /// libcurl's message for it, the most specific it gave.
    public var message: String

    public var description: String { "HTTP request failed: \(message) (curl error \(code))" }
}
