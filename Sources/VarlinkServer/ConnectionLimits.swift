import Glibc
import Logging
import MonitoringLog
import NIOConcurrencyHelpers
import NIOCore
internal import POSIXText

/// What one peer may hold of the server: connections, and bytes of calls read but not answered yet. Every local user
/// may connect to a world-writable socket, so each is held to a fair share, and privileged peers (root, the control
/// group) keep room of their own: an operator is never locked out.
public struct ConnectionLimits: Sendable, Equatable {
    /// The most connections at once, all peers together.
    public var maximumConnections: Int
    /// Of ``maximumConnections``, how many only privileged peers may use.
    public var reservedConnections: Int
    /// The most connections one unprivileged user (uid) may hold at once.
    public var maximumConnectionsPerUser: Int
    /// The most bytes of calls a connection may have read and not yet answered (queued behind a running call).
    public var maximumQueuedBytes: Int
    /// The group whose members are privileged, besides root; `nil` for root only.
    public var privilegedGroup: String?
    /// How long a client may leave a message unfinished (bytes without their terminator) before its connection
    /// is closed.
    public var incompleteMessageTimeout: Duration

    /// Creates limits.
    public init(
        maximumConnections: Int = ConnectionLimits.connectionsForFileLimit(),
        reservedConnections: Int = 32,
        maximumConnectionsPerUser: Int = 64,
        maximumQueuedBytes: Int = 256 << 10,
        privilegedGroup: String? = nil,
        incompleteMessageTimeout: Duration = .seconds(10)
    ) {
        self.incompleteMessageTimeout = incompleteMessageTimeout
        self.maximumConnections = maximumConnections
        self.reservedConnections = min(reservedConnections, maximumConnections)
        self.maximumConnectionsPerUser = maximumConnectionsPerUser
        self.maximumQueuedBytes = maximumQueuedBytes
        self.privilegedGroup = privilegedGroup
    }

    /// The connections the process's file descriptor limit (`RLIMIT_NOFILE`, soft) leaves room for: all but 64
    /// descriptors (Avahi's D-Bus connection, netlink, the registry, probing sockets), at most 4,096. Reaching the
    /// limit itself (`EMFILE`) would lock everyone out, root included; the connection limit comes first.
    public static func connectionsForFileLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 960 }
        let soft = Int(min(limit.rlim_cur, 1 << 20))  // RLIM_INFINITY is the largest value: capped too
        return max(16, min(soft - 64, 4096))
    }
}

/// Why a peer hit a limit.
enum LimitReason: String, Sendable {
    case connections
    case connectionsPerUser = "connections-per-user"
    case queuedBytes = "queued-bytes"
    case pipelinedCalls = "pipelined-calls"
    case incompleteMessage = "incomplete-message"
    /// `accept()` failed: the process's open-file limit (`EMFILE`).
    case fileDescriptors = "file-descriptors"
    /// `accept()` failed: the system's open-file limit (`ENFILE`).
    case systemFileDescriptors = "system-file-descriptors"
    /// `accept()` failed otherwise (out of memory or buffers).
    case acceptFailed = "accept-failed"
}

/// The connections open now, by user, and the admission rule of ``ConnectionLimits``.
final class ConnectionLedger: Sendable {
    private let limits: ConnectionLimits
    private let state = NIOLockedValueBox<(total: Int, byUser: [UInt32: Int])>((0, [:]))

    init(limits: ConnectionLimits) { self.limits = limits }

    /// The connections admitted and not released.
    var openConnections: Int { state.withLockedValue { $0.total } }

    /// Admits a connection of `uid` (privileged or not), or tells why not. An admitted one must be released.
    func admit(uid: UInt32?, privileged: Bool) -> LimitReason? {
        state.withLockedValue { state in
            let room = privileged ? limits.maximumConnections : limits.maximumConnections - limits.reservedConnections
            guard state.total < room else { return .connections }
            let key = uid ?? .max
            if !privileged && state.byUser[key, default: 0] >= limits.maximumConnectionsPerUser {
                return .connectionsPerUser
            }
            state.total += 1
            state.byUser[key, default: 0] += 1
            return nil
        }
    }

    /// Releases an admitted connection.
    func release(uid: UInt32?) {
        state.withLockedValue { state in
            let key = uid ?? .max
            state.total -= 1
            state.byUser[key, default: 1] -= 1
            if state.byUser[key] == 0 { state.byUser[key] = nil }
        }
    }
}

/// Logs the limits hit, at most once per reason every 10 seconds, with how many were not logged since.
final class LimitLog: Sendable {
    private let state = NIOLockedValueBox<[LimitReason: (last: ContinuousClock.Instant, suppressed: Int)]>([:])

    func log(_ reason: LimitReason, logger: Logger, limit: Int) {
        let now = ContinuousClock.now
        let suppressed: Int? = state.withLockedValue { state in
            if let entry = state[reason], now - entry.last < .seconds(10) {
                state[reason] = (entry.last, entry.suppressed + 1)
                return nil
            }
            defer { state[reason] = (now, 0) }
            return state[reason]?.suppressed ?? 0
        }
        guard let suppressed else { return }
        logger.log(
            .clientLimit,
            ["reason": "\(reason.rawValue)", "limit": "\(limit)", "suppressed": "\(suppressed)"]
        )
    }
}

/// The bytes of calls a connection has read and not answered yet.
final class QueuedBytes: Sendable {
    private let bytes = NIOLockedValueBox(0)

    /// Adds `count`; returns the total.
    func add(_ count: Int) -> Int {
        bytes.withLockedValue {
            $0 += count
            return $0
        }
    }

    func subtract(_ count: Int) { bytes.withLockedValue { $0 -= count } }
}

/// Closes a connection whose client started a message and sent nothing more for a while: a message is complete
/// when its NUL terminator came, and a client that never sends it would hold its buffer and connection forever.
/// Sits before the frame decoder and only watches the bytes go by.
final class IncompleteMessageTimeout: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let timeout: Duration
    private var timer: Scheduled<Void>?

    init(timeout: Duration) { self.timeout = timeout }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        if let last = buffer.readableBytesView.last {
            timer?.cancel()
            timer = nil
            if last != 0 {
                let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
                let seconds = Int(timeout.components.seconds)
                timer = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(timeout)) {
                    let context = loopBound.value
                    context.fireErrorCaught(VarlinkServerError.incompleteMessage(timeoutSeconds: seconds))
                    context.close(promise: nil)
                }
            }
        }
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }
}

/// Logs a connection the kernel could not hand over: `accept()` failed, most often because the process ran out of
/// file descriptors (`EMFILE`, `ENFILE`). NIO's accept backoff then pauses accepting for a second, and nobody — root
/// included — gets in until descriptors are free again, so the operator must hear of it. Sits on the listening
/// channel in front of NIO's backoff handler and passes every error on.
final class AcceptFailureLog: ChannelInboundHandler, Sendable {
    typealias InboundIn = Any

    private let logger: Logger
    private let limitLog: LimitLog

    init(logger: Logger, limitLog: LimitLog) {
        self.logger = logger
        self.limitLog = limitLog
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let error = error as? IOError {
            var logger = self.logger
            logger[metadataKey: "errno"] = "\(error.errnoCode)"
            logger[metadataKey: "error"] = "\(POSIXText.errorDescription(error.errnoCode))"
            switch error.errnoCode {
            case EMFILE: limitLog.log(.fileDescriptors, logger: logger, limit: Self.fileLimit())
            case ENFILE: limitLog.log(.systemFileDescriptors, logger: logger, limit: Self.fileLimit())
            default: limitLog.log(.acceptFailed, logger: logger, limit: Self.fileLimit())
            }
        }
        context.fireErrorCaught(error)
    }

    /// The process's open-file limit (soft), the limit an `EMFILE` hit.
    private static func fileLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return -1 }
        return Int(clamping: limit.rlim_cur)
    }
}
