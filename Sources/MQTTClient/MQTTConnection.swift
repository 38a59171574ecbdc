import CMosquitto
import Dispatch
import Foundation
import NIOConcurrencyHelpers

/// One client connection to an MQTT broker, through libmosquitto, that keeps itself connected.
///
/// A thread of the connection's own runs libmosquitto's network loop: it connects, pings, reconnects with backoff
/// after any failure, and reports through ``events``. ``publish(_:)`` and ``subscribe(_:qos:)`` may be called from any task; while disconnected they
/// fail with `MOSQ_ERR_NO_CONN` rather than queue without bound inside the library. MQTT 5 is asked for; a broker
/// that refuses it is spoken to in MQTT 3.1.1.
public final class MQTTConnection: Sendable {
    /// Every event, in order. Ends after ``stop()``.
    public let events: AsyncStream<MQTTEvent>

    // `handle` and `configuration` are internal, not private, only for MQTTConnection+Setup.swift.
    let handle: Handle
    private let continuation: AsyncStream<MQTTEvent>.Continuation
    let configuration: MQTTConfiguration
    private let context: Unmanaged<CallbackContext>
    private let running = Running()

    /// Creates a connection (not connected yet: see ``start()``).
    /// - Throws: ``MQTTError`` if libmosquitto refuses the configuration (a TLS file it cannot read, say).
    public init(configuration: MQTTConfiguration) throws(MQTTError) {
        _ = Self.libraryInitialized
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
        do {
            try configure()
        } catch {
            mosquitto_destroy(client)
            context.release()
            throw error
        }
    }

    deinit {
        // A network thread still blocked (in a TCP connect to a broker that never answers, say) keeps using the
        // client: leak it rather than free it under that thread's feet. Only at exit, in practice.
        guard running.stop() else { return }
        mosquitto_destroy(handle.client)
        context.release()
    }

    /// Starts connecting in the background, on a thread of the connection's own; ``events`` tells when it is
    /// connected. Every failure — a broker that is not there yet, a name that does not resolve, a refused TLS
    /// handshake, a lost connection — is reported as ``MQTTEvent/disconnected(reason:)`` and retried after the
    /// ``MQTTConfiguration/reconnectDelay`` (doubling up to its upper bound), until ``stop()``.
    public func start() {
        running.markStarted()
        let thread = Thread { [handle, configuration, continuation, running] in
            Self.runNetwork(handle: handle, configuration: configuration, events: continuation, running: running)
        }
        thread.name = "mqtt"
        thread.start()
    }

    /// The network thread: connect, then run libmosquitto's loop (reads, writes, pings) until the connection fails;
    /// wait; connect again. libmosquitto's own `mosquitto_loop_forever` gives up for good on some failures
    /// (`MOSQ_ERR_EAI`, `MOSQ_ERR_TLS`), which a daemon must not.
    private static func runNetwork(
        handle: Handle,
        configuration: MQTTConfiguration,
        events: AsyncStream<MQTTEvent>.Continuation,
        running: Running
    ) {
        defer { running.finished() }
        var delay = configuration.reconnectDelay.lowerBound
        var connected = false
        while running.shouldContinue(connected: connected) {
            var code: Int32
            if !connected {
                code = mosquitto_connect(
                    handle.client,
                    configuration.host,
                    Int32(configuration.port),
                    Int32(configuration.keepAlive)
                )
                connected = code == MOSQ_ERR_SUCCESS.rawValue
                if connected { continue }
            } else {
                code = mosquitto_loop(handle.client, 200, 1)
                if code == MOSQ_ERR_SUCCESS.rawValue {
                    delay = configuration.reconnectDelay.lowerBound
                    continue
                }
                connected = false
            }
            if running.isStopping { break }
            events.yield(.disconnected(reason: message(code)))
            running.sleep(for: delay)
            delay = min(delay * 2, configuration.reconnectDelay.upperBound)
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
        return messageID
    }

    /// Subscribes to a topic filter; matching messages arrive as ``MQTTEvent/received(_:)``, retained ones first.
    public func subscribe(_ filter: String, qos: Int = 1) throws(MQTTError) {
        try check(mosquitto_subscribe_v5(handle.client, nil, filter, Int32(qos), 0, nil), "subscribe \(filter)")
    }

    /// Ends a subscription.
    public func unsubscribe(_ filter: String) throws(MQTTError) {
        try check(mosquitto_unsubscribe_v5(handle.client, nil, filter, nil), "unsubscribe \(filter)")
    }

    /// Disconnects cleanly (the broker does not publish the will) and stops the network thread, waiting for what
    /// was published to be written; ends ``events``.
    public func stop() {
        mosquitto_disconnect_v5(handle.client, 0, nil)
        running.stop()
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

/// Whether the network thread should go on, its interruptible sleep between attempts, and its end.
private final class Running: Sendable {
    private struct State {
        var stopRequested: ContinuousClock.Instant?
        var finished = false
        var started = false
    }

    private let state = NIOLockedValueBox(State())
    private let wake = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)

    /// Whether to go on: until ``stop()``, and after it while `connected`, for at most 2 s, so that what was queued
    /// (the DISCONNECT last) is written.
    func shouldContinue(connected: Bool) -> Bool {
        state.withLockedValue { state in
            guard let requested = state.stopRequested else { return true }
            return connected && ContinuousClock.now - requested < .seconds(2)
        }
    }

    var isStopping: Bool { state.withLockedValue { $0.stopRequested != nil } }

    /// Sleeps for `duration`, or until ``stop()``.
    func sleep(for duration: Duration) {
        let (seconds, attoseconds) = duration.components
        _ = wake.wait(timeout: .now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)))
    }

    /// Marks the network thread started.
    func markStarted() { state.withLockedValue { $0.started = true } }

    /// Called by the network thread as it ends.
    func finished() {
        state.withLockedValue { $0.finished = true }
        done.signal()
    }

    /// Tells the network thread to end and waits for it (at most 5 s), if it runs.
    /// - Returns: Whether no network thread runs any more.
    @discardableResult
    func stop() -> Bool {
        let runs = state.withLockedValue { state in
            if state.stopRequested == nil { state.stopRequested = .now }
            return state.started && !state.finished
        }
        guard runs else { return true }
        wake.signal()
        return done.wait(timeout: .now() + .seconds(5)) == .success
    }
}
