import Foundation
import Glibc
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
internal import POSIXText
import ServiceLifecycle
import Varlink

/// A Varlink server on a Unix stream socket: any number of connections, pipelined calls answered in order,
/// `oneway` and `more` calls, and `org.varlink.service` (GetInfo, GetInterfaceDescription) built in.
///
/// Malformed input never affects other connections: an oversized or invalid message closes its connection (and is
/// logged); a call to an unknown interface or method, or with wrong parameters, gets the standard error reply.
public struct VarlinkServer: Service {
    /// What `org.varlink.service.GetInfo` reports.
    public struct Info: Sendable, Encodable {
        public var vendor: String
        public var product: String
        public var version: String
        public var url: String
        /// Creates the service information.
        public init(vendor: String, product: String, version: String, url: String) {
            self.vendor = vendor
            self.product = product
            self.version = version
            self.url = url
        }
    }

    /// Where the server listens.
    public enum Listener: Sendable {
        /// Bind this path. A stale socket file there is replaced; a live one (another server answers) or a file
        /// that is not a socket makes ``run()`` fail. The socket gets `permissions` and is removed at exit.
        case path(String, permissions: mode_t)
        /// Serve a listening socket that was passed in (systemd socket activation).
        case fileDescriptor(CInt)
    }

    private let listener: Listener
    // The properties below without `private` are internal only for the extensions in VarlinkServer+*.swift.
    let interfaces: [String: any VarlinkInterface]
    /// Interface name → the parameters each of its methods declares (`org.varlink.service` included).
    let methodParameters: [String: VarlinkMethodParameters]
    let info: Info
    private let maximumMessageSize: Int
    let maximumPipelinedCalls: Int
    let limits: ConnectionLimits
    let ledger: ConnectionLedger
    let limitLog = LimitLog()
    let logger: Logger
    private let ready: (@Sendable () -> Void)?

    /// Creates a server.
    ///
    /// - Parameters:
    ///   - listener: Where to listen.
    ///   - interfaces: The interfaces served (besides `org.varlink.service`).
    ///   - info: What GetInfo reports.
    ///   - maximumMessageSize: The largest message accepted, in bytes.
    ///   - maximumPipelinedCalls: How many calls a client may queue while one is in progress.
    ///   - limits: What one peer may hold: connections (per user, all together, with room kept for privileged
    ///     peers) and bytes of queued calls. A connection over a limit is closed, with a rate-limited
    ///     `client limit` line.
    ///   - logger: The logger.
    ///   - ready: Called once the socket is listening.
    public init(
        listener: Listener,
        interfaces: [any VarlinkInterface],
        info: Info,
        maximumMessageSize: Int = 1 << 20,
        maximumPipelinedCalls: Int = 64,
        limits: ConnectionLimits = ConnectionLimits(),
        logger: Logger,
        ready: (@Sendable () -> Void)? = nil
    ) {
        self.limits = limits
        self.ledger = ConnectionLedger(limits: limits)
        self.listener = listener
        self.interfaces = Dictionary(interfaces.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var methodParameters = self.interfaces.mapValues { VarlinkMethodParameters(definition: $0.definition) }
        methodParameters["org.varlink.service"] = VarlinkMethodParameters(definition: Self.serviceDefinition)
        self.methodParameters = methodParameters
        self.info = info
        self.maximumMessageSize = maximumMessageSize
        self.maximumPipelinedCalls = maximumPipelinedCalls
        self.logger = logger
        self.ready = ready
    }

    struct Accepted: Sendable {
        var channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        var peer: PeerCredentials?
    }

    public func run() async throws {
        let socket = try await bind()
        ready?()
        let connectionCounter = ConnectionCounter()
        defer { if case .path(let path, _) = listener { UnixSocketPath.remove(path) } }
        do {
            try await cancelWhenGracefulShutdown {
                try await withThrowingDiscardingTaskGroup { group in
                    try await socket.executeThenClose { inbound in
                        for try await accepted in inbound {
                            let id = connectionCounter.next()
                            group.addTask { await serve(accepted, id: id) }
                        }
                    }
                }
            }
        } catch is CancellationError {
            // Shutting down: every connection was cancelled with the listener.
        }
    }

    private func bind() async throws -> NIOAsyncChannel<Accepted, Never> {
        let maximumMessageSize = self.maximumMessageSize
        let incompleteTimeout = limits.incompleteMessageTimeout
        let acceptFailureLog = AcceptFailureLog(logger: logger, limitLog: limitLog)
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(acceptFailureLog)
                }
            }
            // A client may send its calls and shut down its writing side (socat does): still answer them.
            .childChannelOption(.allowRemoteHalfClosure, value: true)
        let initializer: @Sendable (any Channel) -> EventLoopFuture<Accepted> = { channel in
            PeerCredentials.of(channel).flatMapThrowing { peer in
                try channel.pipeline.syncOperations.addHandler(IncompleteMessageTimeout(timeout: incompleteTimeout))
                try channel.pipeline.syncOperations.addHandler(
                    ByteToMessageHandler(VarlinkFrameDecoder(maximumMessageSize: maximumMessageSize))
                )
                return Accepted(
                    channel: try NIOAsyncChannel(wrappingChannelSynchronously: channel),
                    peer: peer
                )
            }
        }
        switch listener {
        case .fileDescriptor(let descriptor):
            return try await bootstrap.bind(descriptor, childChannelInitializer: initializer)
        case .path(let path, let permissions):
            // Bind a temporary name, set the permissions, then rename it into place: clients never see a socket
            // with the wrong permissions, and a stale socket is replaced in one step.
            try UnixSocketPath.prepare(path)
            let temporary = UnixSocketPath.temporaryName(for: path)
            UnixSocketPath.remove(temporary)
            let socket: NIOAsyncChannel<Accepted, Never>
            do {
                socket = try await bootstrap.bind(unixDomainSocketPath: temporary, childChannelInitializer: initializer)
            } catch {
                throw VarlinkServerError.cannotListen(path: path, reason: "\(error)")
            }
            guard chmod(temporary, permissions) == 0, rename(temporary, path) == 0 else {
                let reason = POSIXText.errorDescription(errno)
                UnixSocketPath.remove(temporary)
                try? await socket.channel.close()
                throw VarlinkServerError.cannotListen(path: path, reason: reason)
            }
            return socket
        }
    }

}

/// A counter for connection numbers.
private final class ConnectionCounter: Sendable {
    private let value = NIOLockedValueBox(0)
    func next() -> Int {
        value.withLockedValue { value in
            defer { value += 1 }
            return value + 1
        }
    }
}
