import HTTPTypes
import HummingbirdCore
import Logging
import MonitoringLog
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTPTypes
import NIOPosix

/// What peerscan-web listens on: an address it binds, or a socket systemd bound and passed (socket activation).
public enum Listener: Sendable, CustomStringConvertible {
    /// An address to bind.
    case address(ListenAddress)
    /// A listening socket passed by systemd (`LISTEN_FDS`).
    case inherited(descriptor: Int32)

    public var description: String {
        switch self {
        case .address(let address): "\(address)"
        case .inherited(let descriptor): "systemd socket (fd \(descriptor))"
        }
    }
}

/// The HTTP server: each listener's accept loop, HummingbirdCore's HTTP/1 channel on each connection, and the
/// responder.
///
/// The accept loops are written here instead of in Hummingbird's `Application`, which binds only addresses it is
/// given: this takes systemd's sockets too (`ServerBootstrap.bind(_ socket:)`), knows which listener a request came
/// through (a loopback TCP one, or not: ``AccessPolicy``) and bounds the connections of each client address.
public struct WebServer: Sendable {
    /// A listening socket: its connections, each an HTTP/1 channel of request and response parts.
    typealias ListeningChannel = NIOAsyncChannel<NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>, Never>

    /// Whether a bound socket's local address is loopback (a Unix socket is not: behind it is a reverse proxy).
    static func isLoopback(_ address: SocketAddress?) -> Bool {
        guard let address, let ip = address.ipAddress else { return false }
        return IPAddressText.isLoopback(ip)
    }

    let listeners: [Listener]
    let responder: WebResponder
    let connectionLimitPerAddress: Int
    let logger: Logger

    /// A server.
    public init(
        listeners: [Listener],
        responder: WebResponder,
        connectionLimitPerAddress: Int = ConnectionCounts.defaultLimitPerAddress,
        logger: Logger
    ) {
        self.listeners = listeners
        self.responder = responder
        self.connectionLimitPerAddress = connectionLimitPerAddress
        self.logger = logger
    }

    /// Binds every listener, then serves until cancelled.
    /// - Parameter onListening: Called once every listener is bound, with each one's local address.
    /// - Throws: An error of the socket layer if a listener cannot be bound.
    public func run(onListening: @Sendable ([String]) -> Void = { _ in }) async throws {
        let limiter = ConnectionLimiter(limitPerAddress: connectionLimitPerAddress)
        var bound: [(ListeningChannel, HTTP1Channel)] = []
        for listener in listeners {
            let (channel, handler) = try await bind(listener)
            logger.log(
                .webListening,
                ["listener": "\(listener)", "address": "\(channel.channel.localAddress.map { "\($0)" } ?? "?")"]
            )
            bound.append((channel, handler))
        }
        onListening(bound.map { $0.0.channel.localAddress.map { "\($0)" } ?? "?" })
        try await withThrowingDiscardingTaskGroup { group in
            for (channel, handler) in bound {
                group.addTask { try await serve(channel, handler: handler, limiter: limiter) }
            }
        }
    }

    /// Binds one listener, with the HTTP/1 channel of its connections.
    private func bind(_ listener: Listener) async throws -> (ListeningChannel, HTTP1Channel) {
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.backlog, value: 256)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
        // The responder learns whether the listener is loopback once it is bound: a box the closure reads.
        let loopback = LoopbackFlag()
        let responder = self.responder
        let handler = HTTP1Channel(responder: { request, writer, _ in
            try await responder.respond(to: request, writer: writer, listenerIsLoopback: loopback.value)
        })
        let logger = self.logger
        let initializer:
            @Sendable (any Channel) -> EventLoopFuture<NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>> = {
                handler.setup(channel: $0, logger: logger)
            }
        let channel: ListeningChannel
        switch listener {
        case .address(.tcp(let host, let port)):
            channel = try await bootstrap.bind(host: host, port: port, childChannelInitializer: initializer)
        case .address(.unixSocket(let path)):
            channel = try await bootstrap.bind(
                unixDomainSocketPath: path,
                cleanupExistingSocketFile: true,
                childChannelInitializer: initializer
            )
        case .inherited(let descriptor):
            channel = try await bootstrap.bind(descriptor, childChannelInitializer: initializer)
        }
        loopback.set(Self.isLoopback(channel.channel.localAddress))
        return (channel, handler)
    }

    /// Accepts connections until cancelled, each served in a task of its own, past the per-address bound closed.
    private func serve(
        _ server: ListeningChannel,
        handler: HTTP1Channel,
        limiter: ConnectionLimiter
    ) async throws {
        try await server.executeThenClose { inbound in
            try await withThrowingDiscardingTaskGroup { group in
                for try await connection in inbound {
                    let address = connection.channel.remoteAddress?.ipAddress ?? "local"
                    guard limiter.open(from: address) else {
                        logger.log(.webConnectionRefused, ["client": "\(address)"])
                        try? await connection.channel.close()
                        continue
                    }
                    group.addTask {
                        defer { limiter.close(from: address) }
                        await handler.handle(value: connection, logger: logger)
                    }
                }
            }
        }
    }
}

/// Whether a listener is loopback: set once, after binding, before any connection is accepted.
private final class LoopbackFlag: Sendable {
    private let box = NIOLockedValueBox(false)
    var value: Bool { box.withLockedValue { $0 } }
    func set(_ value: Bool) { box.withLockedValue { $0 = value } }
}
