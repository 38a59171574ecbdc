import AsyncPrimitives
import Foundation
import Glibc
import Logging
import MonitoringLog
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import ServiceLifecycle
import Varlink

/// One Varlink interface a ``VarlinkServer`` serves.
public protocol VarlinkInterface: Sendable {
    /// The interface name, e.g. `io.peerscan`.
    var name: String { get }
    /// The interface definition (the `.varlink` text), served by `org.varlink.service.GetInterfaceDescription`.
    var definition: String { get }
    /// Answers one call of this interface, through `context.reply`. Throw a ``VarlinkError`` to answer with an
    /// error; any other error closes the connection. A `more` call ends when this returns, or is cancelled when the
    /// client disconnects.
    func handle(_ call: VarlinkCall, context: VarlinkCallContext) async throws
}

/// What a method handler knows about its call, and how it replies.
public struct VarlinkCallContext: Sendable {
    /// The call.
    public let call: VarlinkCall
    /// The caller's credentials, from the kernel.
    public let peer: PeerCredentials?
    /// A number identifying the connection in logs.
    public let connectionID: Int
    /// A logger with the connection's metadata.
    public let logger: Logger
    let writer: NIOAsyncChannelOutboundWriter<ByteBuffer>

    /// Sends a reply; waits while the client does not read (backpressure). Nothing is sent for a `oneway` call.
    ///
    /// - Parameters:
    ///   - parameters: The reply's parameters.
    ///   - continues: More replies follow; only honoured for `more` calls.
    public func reply(_ parameters: some Encodable, continues: Bool = false) async throws {
        guard !call.oneway else { return }
        try await writer.write(VarlinkEncoding.reply(parameters, continues: continues && call.more))
    }

    /// Sends a reply prepared once for many clients (the bytes are shared, not copied). A prepared reply that
    /// continues is only for `more` calls.
    public func reply(_ prepared: VarlinkPreparedReply) async throws {
        guard !call.oneway else { return }
        try await writer.write(prepared.frame)
    }

    /// Sends an error reply (nothing for a `oneway` call).
    public func reply(error: VarlinkError) async throws {
        guard !call.oneway else { return }
        try await replyEvenIfOneway(error: error)
    }

    /// Sends an error reply, also to a `oneway` call: for a call that cannot be taken as either.
    func replyEvenIfOneway(error: VarlinkError) async throws {
        try await writer.write(VarlinkEncoding.error(error))
    }
}

/// A reply encoded once, to be sent to many clients: the same bytes go to each of them.
public struct VarlinkPreparedReply: Sendable {
    package let frame: ByteBuffer

    /// Prepares a reply from its parameters, already encoded as a JSON object.
    /// - Parameters:
    ///   - encodedParameters: The `parameters` object, as JSON.
    ///   - continues: More replies follow (only for `more` calls).
    public init(encodedParameters: Data, continues: Bool) {
        frame = VarlinkEncoding.reply(encodedParameters: encodedParameters, continues: continues)
    }

    /// Prepares a reply by encoding its parameters.
    public init(_ parameters: some Encodable, continues: Bool) throws {
        frame = try VarlinkEncoding.reply(parameters, continues: continues)
    }

    /// The size of the reply on the wire, in bytes.
    public var size: Int { frame.readableBytes }
}

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
    private let interfaces: [String: any VarlinkInterface]
    /// Interface name → the parameters each of its methods declares (`org.varlink.service` included).
    private let methodParameters: [String: VarlinkMethodParameters]
    private let info: Info
    private let maximumMessageSize: Int
    private let maximumPipelinedCalls: Int
    private let limits: ConnectionLimits
    private let ledger: ConnectionLedger
    private let limitLog = LimitLog()
    private let logger: Logger
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

    private struct Accepted: Sendable {
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
                let reason = String(cString: strerror(errno))
                UnixSocketPath.remove(temporary)
                try? await socket.channel.close()
                throw VarlinkServerError.cannotListen(path: path, reason: reason)
            }
            return socket
        }
    }

    private func serve(_ accepted: Accepted, id: Int) async {
        var logger = self.logger
        logger[metadataKey: "connection"] = "\(id)"
        if let peer = accepted.peer {
            logger[metadataKey: "pid"] = "\(peer.pid)"
            logger[metadataKey: "uid"] = "\(peer.uid)"
        }
        let uid = accepted.peer?.uid
        let privileged = accepted.peer?.isRootOrMember(of: limits.privilegedGroup) ?? false
        if let reason = ledger.admit(uid: uid, privileged: privileged) {
            let limit = reason == .connections ? limits.maximumConnections : limits.maximumConnectionsPerUser
            limitLog.log(reason, logger: logger, limit: limit)
            try? await accepted.channel.channel.close()
            return
        }
        defer { ledger.release(uid: uid) }
        logger.log(.clientConnected)
        let queued = QueuedBytes()
        let maximumQueuedBytes = limits.maximumQueuedBytes
        do {
            try await accepted.channel.executeThenClose { inbound, outbound in
                let (calls, callsContinuation) = AsyncStream<ByteBuffer>.makeStream(
                    bufferingPolicy: .bufferingOldest(maximumPipelinedCalls)
                )
                // A stream ends when the connection closes; a client that only shuts down its writing side (socat
                // does) still gets every reply.
                let closed = OneShotSignal()
                accepted.channel.channel.closeFuture.whenComplete { _ in closed.fire() }
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        defer { callsContinuation.finish() }
                        do {
                            for try await frame in inbound {
                                guard queued.add(frame.readableBytes) <= maximumQueuedBytes else {
                                    throw VarlinkServerError.tooManyQueuedBytes(limit: maximumQueuedBytes)
                                }
                                if case .dropped = callsContinuation.yield(frame) {
                                    throw VarlinkServerError.tooManyPipelinedCalls(limit: maximumPipelinedCalls)
                                }
                            }
                        } catch {
                            closed.fire()
                            throw error
                        }
                    }
                    for await frame in calls {
                        defer { queued.subtract(frame.readableBytes) }
                        let call = try VarlinkCall(message: Data(frame.readableBytesView))
                        let context = VarlinkCallContext(
                            call: call,
                            peer: accepted.peer,
                            connectionID: id,
                            logger: logger,
                            writer: outbound
                        )
                        try await dispatch(context, closed: closed)
                    }
                    try await group.waitForAll()
                }
            }
            logger.log(.clientDisconnected)
        } catch is CancellationError {
            logger.log(.clientDisconnectedAtShutdown, ["reason": "shutdown"])
        } catch VarlinkServerError.tooManyQueuedBytes(let limit) {
            limitLog.log(.queuedBytes, logger: logger, limit: limit)
        } catch VarlinkServerError.tooManyPipelinedCalls(let limit) {
            limitLog.log(.pipelinedCalls, logger: logger, limit: limit)
        } catch VarlinkServerError.incompleteMessage(let seconds) {
            limitLog.log(.incompleteMessage, logger: logger, limit: seconds)
        } catch let error as ChannelError where error == .ioOnClosedChannel || error == .alreadyClosed {
            // An ordinary disconnect while replies were still being written (calls queued, a Monitor stream).
            logger.log(.clientDisconnected, ["reason": "closed with replies pending"])
        } catch {
            logger.log(.clientError, ["error": "\(error)"])
        }
    }

    private func dispatch(_ context: VarlinkCallContext, closed: OneShotSignal) async throws {
        let call = context.call
        if call.oneway && call.more {
            // Contradictory: a oneway call gets no reply, a more call a stream of them. Refused with a reply despite
            // `oneway` (the caller may be waiting for its stream), and the method does not run.
            context.logger.log(.callRefused, ["method": "\(call.method)", "reason": "oneway with more"])
            try await context.replyEvenIfOneway(error: .invalidParameter("oneway"))
            return
        }
        do {
            if call.upgrade { throw VarlinkError.methodNotImplemented(call.method) }
            if let declared = methodParameters[call.interface]?.parameterNames(of: call.methodName),
                let unknown = try call.parameterNames().first(where: { !declared.contains($0) })
            {
                throw VarlinkError.invalidParameter(unknown)
            }
            if call.interface == "org.varlink.service" {
                try await serviceInterface(context)
            } else if let interface = interfaces[call.interface] {
                if call.more {
                    // A stream ends when the handler returns, or when the client goes away.
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask { try await interface.handle(call, context: context) }
                        group.addTask { await closed.wait() }
                        try await group.next()
                        group.cancelAll()
                    }
                } else {
                    try await interface.handle(call, context: context)
                }
            } else {
                throw VarlinkError.interfaceNotFound(call.interface)
            }
        } catch let error as VarlinkError {
            context.logger.log(.callFailed, ["method": "\(call.method)", "error": "\(error)"])
            try await context.reply(error: error)
        }
    }

    private func serviceInterface(_ context: VarlinkCallContext) async throws {
        switch context.call.methodName {
        case "GetInfo":
            struct Reply: Encodable {
                var vendor, product, version, url: String
                var interfaces: [String]
            }
            try await context.reply(
                Reply(
                    vendor: info.vendor,
                    product: info.product,
                    version: info.version,
                    url: info.url,
                    interfaces: ["org.varlink.service"] + interfaces.keys.sorted()
                )
            )
        case "GetInterfaceDescription":
            struct Parameters: Decodable { var interface: String }
            struct Reply: Encodable { var description: String }
            let name = try context.call.parameters(as: Parameters.self).interface
            if name == "org.varlink.service" {
                try await context.reply(Reply(description: Self.serviceDefinition))
            } else if let interface = interfaces[name] {
                try await context.reply(Reply(description: interface.definition))
            } else {
                throw VarlinkError.interfaceNotFound(name)
            }
        default:
            throw VarlinkError.methodNotFound(context.call.method)
        }
    }

    /// The definition of `org.varlink.service`, as the Varlink specification gives it.
    static let serviceDefinition = """
        # The Varlink Service Interface is provided by every varlink service. It
        # describes the service and the interfaces it implements.
        interface org.varlink.service

        # Get a list of all the interfaces a service provides and information
        # about the implementation.
        method GetInfo() -> (
          vendor: string,
          product: string,
          version: string,
          url: string,
          interfaces: []string
        )

        # Get the description of an interface that is implemented by this service.
        method GetInterfaceDescription(interface: string) -> (description: string)

        # The requested interface was not found.
        error InterfaceNotFound (interface: string)

        # The requested method was not found
        error MethodNotFound (method: string)

        # The interface defines the requested method, but the service does not
        # implement it.
        error MethodNotImplemented (method: string)

        # One of the passed parameters is invalid.
        error InvalidParameter (parameter: string)

        # Client is denied access
        error PermissionDenied ()

        # Method is expected to be called with 'more' set to true, but wasn't
        error ExpectedMore ()

        """
}

/// Why a ``VarlinkServer`` could not serve.
public enum VarlinkServerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Another server already answers on the path.
    case alreadyServed(path: String)
    /// The path exists and is not a socket.
    case notASocket(path: String)
    /// The socket could not be created there.
    case cannotListen(path: String, reason: String)
    /// A client queued more calls than allowed while one was in progress.
    case tooManyPipelinedCalls(limit: Int)
    /// A client queued more bytes of calls than allowed while one was in progress.
    case tooManyQueuedBytes(limit: Int)
    /// A client left a message unfinished for longer than allowed.
    case incompleteMessage(timeoutSeconds: Int)

    public var description: String {
        switch self {
        case .alreadyServed(let path): "another instance is already serving \(path)"
        case .notASocket(let path): "\(path) exists and is not a socket; not replacing it"
        case .cannotListen(let path, let reason): "cannot listen on \(path): \(reason)"
        case .tooManyPipelinedCalls(let limit): "more than \(limit) pipelined calls"
        case .tooManyQueuedBytes(let limit): "more than \(limit) bytes of pipelined calls"
        case .incompleteMessage(let seconds): "a message left unfinished for \(seconds) s"
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
