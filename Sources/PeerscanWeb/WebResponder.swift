import Foundation
import HTTPTypes
import HummingbirdCore
import JSONValue
import Logging
import MonitoringLog
import NIOCore
import PeerScanClient
import Varlink

/// Answers one HTTP request: the `Host` and token checks, then the route (the page, its files, or the API, a thin
/// proxy to peerscand's io.peerscan).
///
/// Nothing in a request names a file to read or a command to run: the page's files are compiled in and looked up by
/// name in a fixed table, and the API calls a fixed set of io.peerscan methods.
public struct WebResponder: Sendable {
    /// The largest request body read (a write's parameters): larger ones get 413.
    public static let maximumBodySize = 64 * 1024
    /// How long an event stream may stay silent before a keepalive comment.
    public static let keepaliveInterval = Duration.seconds(15)

    let policy: AccessPolicy
    let socketPath: String
    let metrics: MetricsEndpoint?
    let logger: Logger

    /// A responder.
    /// - Parameters:
    ///   - policy: Who may make which request.
    ///   - socketPath: peerscand's socket.
    ///   - metrics: `GET /metrics`; `nil` for none (404).
    ///   - logger: Where failures are logged.
    public init(policy: AccessPolicy, socketPath: String, metrics: MetricsEndpoint? = nil, logger: Logger) {
        self.policy = policy
        self.socketPath = socketPath
        self.metrics = metrics
        self.logger = logger
    }

    /// Answers `request` through `writer`.
    /// - Parameter listenerIsLoopback: Whether the request came through a loopback TCP listener.
    public func respond(
        to request: Request,
        writer: consuming ResponseWriter,
        listenerIsLoopback: Bool
    ) async throws {
        var request = request
        let response = await response(to: &request, listenerIsLoopback: listenerIsLoopback)
        if request.method == .head {
            try await writer.write(response: response.head, body: ResponseBody())
        } else {
            try await writer.write(response: response.head, body: response.body)
        }
    }

    /// The response to a request.
    func response(to request: inout Request, listenerIsLoopback: Bool) async -> Response {
        let route = WebRoute(method: request.method.rawValue, path: request.uri.path)
        let host = request.head.authority
        switch policy.decide(
            host: host,
            authorization: request.headers[.authorization],
            access: route.access,
            listenerIsLoopback: listenerIsLoopback
        ) {
        case .misdirected: return WebResponses.plain(.misdirectedRequest)
        case .unauthorized: return WebResponses.error(.unauthorized, name: "peerscan-web.Unauthorized")
        case .allowed: break
        }
        switch route {
        case .page: return WebResponses.asset(PageAssets.index)
        case .asset(let name):
            guard let asset = PageAssets.asset(named: name) else { return WebResponses.plain(.notFound) }
            return WebResponses.asset(asset)
        case .notFound:
            guard request.uri.path.hasPrefix("/api/") else { return WebResponses.plain(.notFound) }
            return WebResponses.error(.notFound, name: "peerscan-web.NotFound")
        case .methodNotAllowed(let allowed): return WebResponses.plain(.methodNotAllowed, extra: [.allow: allowed])
        case .snapshot: return await proxy("GetSnapshot", [String: String]())
        case .known: return await proxy("ListKnownDevices", [String: String]())
        case .alertRules: return await proxy("ListAlertRules", [String: String]())
        case .device(let id): return await proxy("GetDevice", ["id": id])
        case .events: return events(for: request)
        case .metrics:
            guard let metrics else { return WebResponses.plain(.notFound) }
            return await metrics.response(accept: request.headers[.accept])
        case .write(let method): return await write(method, request: &request)
        }
    }

    /// A write: the body, a JSON object, passed to the method as its parameters.
    private func write(_ method: WriteMethod, request: inout Request) async -> Response {
        let mediaType = request.headers[.contentType]?.split(separator: ";").first
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard mediaType == "application/json" else {
            return WebResponses.error(.unsupportedMediaType, name: "peerscan-web.ExpectedJSON")
        }
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: Self.maximumBodySize)
        } catch {
            return WebResponses.error(.contentTooLarge, name: "peerscan-web.BodyTooLarge")
        }
        guard
            case .object(let parameters)? = try? JSONDecoder().decode(
                JSON.self,
                from: Data(body.readableBytesView)
            )
        else { return WebResponses.error(.badRequest, name: "peerscan-web.ExpectedJSONObject") }
        return await proxy(method.rawValue, parameters)
    }

    /// Calls an io.peerscan method and answers with its reply as received, or its error.
    private func proxy(_ method: String, _ parameters: some Encodable & Sendable) async -> Response {
        do {
            let reply = try await PeerScanConnection.withConnection(to: socketPath) { connection in
                try await connection.callPassingJSON(method, parameters)
            }
            return WebResponses.json(reply)
        } catch let error as VarlinkError {
            return WebResponses.varlinkError(error)
        } catch {
            logger.log(.webCallFailed, ["method": "\(method)", "error": "\(error)"])
            return WebResponses.error(.serviceUnavailable, name: "peerscan-web.DaemonUnavailable")
        }
    }

    /// The event stream, resuming where `Last-Event-ID` or `?since=` says.
    private func events(for request: Request) -> Response {
        let since = request.uri.queryParameters["since"].map { String($0).removingPercentEncoding ?? String($0) }
        let resume = ResumePoint.of(lastEventID: request.headers[.lastEventID], sinceQuery: since)
        let relay = EventRelay(socketPath: socketPath, keepaliveInterval: Self.keepaliveInterval, logger: logger)
        var fields = HTTPFields()
        fields[.contentType] = "text/event-stream"
        SecurityHeaders.addAPI(to: &fields)
        let body = ResponseBody { writer in
            await relay.run(from: resume) { chunk in try await writer.write(chunk) }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: fields, body: body)
    }
}

extension HTTPField.Name {
    /// `Last-Event-ID`: the id of the last Server-Sent Event the client has.
    static let lastEventID = HTTPField.Name("Last-Event-ID")!
}
