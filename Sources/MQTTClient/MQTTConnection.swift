import AsyncPrimitives
internal import CMosquitto
import Glibc
internal import POSIXText

/// One client connection to an MQTT broker, through libmosquitto, that keeps itself connected.
///
/// A ``ReaderThread`` of the connection's own drives libmosquitto (no thread of the library's): it connects, waits
/// in `poll(2)` on the socket (for room to write only while `mosquitto_want_write`), reads, writes and pings
/// (`mosquitto_loop_read`, `_write`, `_misc`), reconnects with backoff after any failure, and reports through
/// ``events``. A publish, subscription or stop wakes it through its eventfd.
///
/// ``publish(_:)`` and ``subscribe(_:qos:)`` may be called from any task; while disconnected they fail with
/// `MOSQ_ERR_NO_CONN` rather than queue without bound inside the library. MQTT 5 is asked for; a broker that refuses
/// it is spoken to in MQTT 3.1.1.
///
/// Threading: libmosquitto is in threaded mode (`mosquitto_threaded_set`: it locks its state), so publishers call it
/// from any thread; only the network thread reads, writes and connects. ``stop()`` awaits that thread's end without
/// blocking a thread of the pool.
public final class MQTTConnection: Sendable {
    /// Every event, in order. Ends after ``stop()``.
    public let events: AsyncStream<MQTTEvent>

    // `handle` and `configuration` are internal, not private, only for MQTTConnection+Setup.swift.
    let handle: Handle
    private let continuation: AsyncStream<MQTTEvent>.Continuation
    let configuration: MQTTConfiguration
    private let context: Unmanaged<CallbackContext>
    private let reader: ReaderThread
    /// Whether ``stop()`` was called: the network thread then writes what was queued before it ends (the reader's own
    /// stop would end it at once).
    private let stopping = OneShotSignal()

    /// Creates a connection (not connected yet: see ``start()``).
    /// - Throws: ``MQTTError`` if libmosquitto refuses the configuration (a TLS file it cannot read, say).
    public init(configuration: MQTTConfiguration) throws(MQTTError) {
        _ = Self.libraryInitialized
        reader = try ReaderThread { (errno: Int32) -> MQTTError in
            .library(operation: "eventfd", code: MOSQ_ERR_ERRNO.rawValue, message: POSIXText.errorDescription(errno))
        }
        let (events, continuation) = AsyncStream<MQTTEvent>.makeStream()
        let context = Unmanaged.passRetained(CallbackContext(continuation: continuation))
        guard let client = mosquitto_new(configuration.clientID, true, context.toOpaque()) else {
            context.release()
            throw .library(operation: "mosquitto_new", code: -1, message: "out of memory or invalid client id")
        }
        self.events = events
        self.continuation = continuation
        self.configuration = configuration
        self.context = context
        self.handle = Handle(client)
        try configure()  // if it throws, deinit frees the client: every property is set
    }

    deinit {
        // A network thread still running (blocked in a TCP connect to a broker that never answers, say) keeps using
        // the client: leak it rather than free it under that thread's feet. Only at exit, in practice.
        stopping.fire()
        reader.signal()
        guard !reader.isRunning else { return }
        mosquitto_destroy(handle.client)
        context.release()
    }

    /// Starts connecting in the background, on a thread of the connection's own; ``events`` tells when it is
    /// connected. Every failure — a broker that is not there yet, a name that does not resolve, a refused TLS
    /// handshake, a lost connection — is reported as ``MQTTEvent/disconnected(reason:)`` and retried after the
    /// ``MQTTConfiguration/reconnectDelay`` (doubling up to its upper bound), until ``stop()``. Call once.
    public func start() {
        reader.start(threadNamed: "peerscan-mqtt") { [handle, configuration, continuation, reader, stopping] in
            var network = NetworkLoop(client: handle.client, configuration: configuration, events: continuation)
            do {
                try reader.loop(
                    orThrow: { (errno: Int32) -> any Error in
                        MQTTError
                            .library(
                                operation: "poll",
                                code: MOSQ_ERR_ERRNO.rawValue,
                                message: POSIXText.errorDescription(errno)
                            )
                    },
                    prepare: { network.prepare(stopping: stopping.hasFired) },
                    handle: { network.handle($0, stopping: stopping.hasFired) }
                )
            } catch {
                continuation.yield(.disconnected(reason: "\(error)"))  // poll(2) failed: the thread ends
            }
        }
    }

    /// Publishes a message.
    /// - Returns: Its message identifier, which ``MQTTEvent/published(messageID:)`` acknowledges.
    /// - Throws: ``MQTTError`` while disconnected, or for a message the library refuses (a topic with wildcards).
    @discardableResult
    public func publish(_ message: MQTTMessage) throws(MQTTError) -> Int32 {
        var messageID: Int32 = 0
        let code = message.payload.withUnsafeBytes { payload in
            mosquitto_publish_v5(
                handle.client,
                &messageID,
                message.topic,
                Int32(payload.count),
                payload.baseAddress,
                Int32(message.qos),
                message.retain,
                nil
            )
        }
        try check(code, "publish \(message.topic)")
        reader.signal()  // the network thread now waits for room to write
        return messageID
    }

    /// Subscribes to a topic filter; matching messages arrive as ``MQTTEvent/received(_:)``, retained ones first.
    public func subscribe(_ filter: String, qos: Int = 1) throws(MQTTError) {
        try check(mosquitto_subscribe_v5(handle.client, nil, filter, Int32(qos), 0, nil), "subscribe \(filter)")
        reader.signal()
    }

    /// Ends a subscription.
    public func unsubscribe(_ filter: String) throws(MQTTError) {
        try check(mosquitto_unsubscribe_v5(handle.client, nil, filter, nil), "unsubscribe \(filter)")
        reader.signal()
    }

    /// Disconnects cleanly (the broker does not publish the will) and stops the network thread, which writes what
    /// was published first (for at most 2 s); ends ``events``. Awaits the thread's end without blocking a thread,
    /// for at most 5 s (a thread blocked in a connect ends later, on its own).
    public func stop() async {
        mosquitto_disconnect_v5(handle.client, 0, nil)
        stopping.fire()
        reader.signal()
        await reader.join(within: .seconds(5))
        continuation.finish()
    }

    func check(_ code: Int32, _ operation: String) throws(MQTTError) {
        guard code != MOSQ_ERR_SUCCESS.rawValue else { return }
        throw .library(operation: operation, code: code, message: Self.message(code))
    }

    /// libmosquitto's text for an error code (`MOSQ_ERR_ERRNO`: the system's, from `errno`).
    static func message(_ code: Int32) -> String {
        String(cString: mosquitto_strerror(code))
    }

    private static let libraryInitialized: Void = { _ = mosquitto_lib_init() }()
}

/// The `struct mosquitto *`: used from any thread, as libmosquitto allows in threaded mode
/// (`mosquitto_threaded_set`), in which it guards its state with locks.
struct Handle: @unchecked Sendable {
    let client: OpaquePointer
    init(_ client: OpaquePointer) { self.client = client }
}
