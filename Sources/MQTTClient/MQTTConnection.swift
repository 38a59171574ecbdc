import CMosquitto
import Dispatch
import Foundation
import NIOConcurrencyHelpers
import Synchronization

/// Where and how to connect to an MQTT broker.
public struct MQTTConfiguration: Sendable, Equatable {
    /// The broker's host name or address.
    public var host: String
    /// The broker's port (1883 for MQTT, 8883 for MQTT over TLS).
    public var port: Int
    /// The client identifier; the broker holds one connection per identifier.
    public var clientID: String
    /// Seconds between pings while idle; the broker declares the client dead (and publishes its will) after 1.5 times
    /// this without traffic.
    public var keepAlive: Int
    /// The user name and password, if the broker wants them.
    public var credentials: MQTTCredentials?
    /// TLS, if the broker is reached over TLS.
    public var tls: MQTTTLS?
    /// The message the broker publishes when the connection ends without a clean disconnect.
    public var will: MQTTMessage?
    /// The shortest and longest wait before a reconnection attempt; the wait doubles from one to the other.
    public var reconnectDelay: ClosedRange<Duration>

    /// Creates a configuration.
    public init(
        host: String,
        port: Int,
        clientID: String,
        keepAlive: Int = 30,
        credentials: MQTTCredentials? = nil,
        tls: MQTTTLS? = nil,
        will: MQTTMessage? = nil,
        reconnectDelay: ClosedRange<Duration> = .milliseconds(250) ... .seconds(4)
    ) {
        self.host = host
        self.port = port
        self.clientID = clientID
        self.keepAlive = keepAlive
        self.credentials = credentials
        self.tls = tls
        self.will = will
        self.reconnectDelay = reconnectDelay
    }
}

/// A broker's user name and password.
public struct MQTTCredentials: Sendable, Equatable {
    /// The user name.
    public var username: String
    /// The password, if any.
    public var password: String?

    /// Creates credentials.
    public init(username: String, password: String?) {
        self.username = username
        self.password = password
    }
}

/// TLS settings: the certificate authorities the broker's certificate is checked against, and an optional client
/// certificate.
public struct MQTTTLS: Sendable, Equatable {
    /// A PEM file of trusted certificate authorities; `nil` for the system's (`/etc/ssl/certs`).
    public var caFile: String?
    /// A PEM client certificate, if the broker authenticates clients by certificate.
    public var certificateFile: String?
    /// The client certificate's PEM private key.
    public var keyFile: String?

    /// Creates TLS settings.
    public init(caFile: String? = nil, certificateFile: String? = nil, keyFile: String? = nil) {
        self.caFile = caFile
        self.certificateFile = certificateFile
        self.keyFile = keyFile
    }
}

/// A message to publish.
public struct MQTTMessage: Sendable, Equatable {
    /// The topic.
    public var topic: String
    /// The payload; empty with `retain` deletes the topic's retained message.
    public var payload: [UInt8]
    /// The quality of service: 0 (at most once), 1 (at least once) or 2 (exactly once).
    public var qos: Int
    /// Whether the broker keeps it for later subscribers.
    public var retain: Bool

    /// Creates a message.
    public init(topic: String, payload: [UInt8], qos: Int = 1, retain: Bool = false) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
    }
}

/// What happened on an ``MQTTConnection``.
public enum MQTTEvent: Sendable, Equatable {
    /// Connected (again): the broker accepted the session, speaking this MQTT version (5 or 4, i.e. 3.1.1).
    case connected(protocolVersion: Int)
    /// A connection attempt failed or the connection was lost; the connection tries again by itself.
    case disconnected(reason: String)
    /// The broker acknowledged the message with this identifier (QoS 1 and 2), or it was sent (QoS 0).
    case published(messageID: Int32)
    /// A message arrived on a subscription.
    case received(MQTTMessage)
}

/// Why an MQTT operation failed.
public enum MQTTError: Error, Equatable, CustomStringConvertible {
    /// libmosquitto refused the operation.
    case library(operation: String, code: Int32, message: String)

    public var description: String {
        switch self {
        case .library(let operation, _, let message): "\(operation): \(message)"
        }
    }
}

/// One client connection to an MQTT broker, through libmosquitto, that keeps itself connected.
///
/// A thread of the connection's own runs libmosquitto's network loop: it connects, pings, reconnects with backoff
/// after any failure, and reports through ``events``. ``publish(_:)`` and ``subscribe(_:qos:)`` may be called from any task; while disconnected they
/// fail with `MOSQ_ERR_NO_CONN` rather than queue without bound inside the library. MQTT 5 is asked for; a broker
/// that refuses it is spoken to in MQTT 3.1.1.
public final class MQTTConnection: Sendable {
    /// Every event, in order. Ends after ``stop()``.
    public let events: AsyncStream<MQTTEvent>

    private let handle: Handle
    private let continuation: AsyncStream<MQTTEvent>.Continuation
    private let configuration: MQTTConfiguration
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

    // MARK: - Setup

    private func configure() throws(MQTTError) {
        let client = handle.client
        // Called from the network thread and from publishers' threads: libmosquitto locks its state.
        try check(mosquitto_threaded_set(client, true), "mosquitto_threaded_set")
        try check(
            mosquitto_int_option(client, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5),
            "protocol version"
        )
        // Small messages go out at once: with Nagle's algorithm each window of unacknowledged messages waited for
        // the peer's delayed ACK (tens of ms per round on loopback).
        try check(mosquitto_int_option(client, MOSQ_OPT_TCP_NODELAY, 1), "TCP_NODELAY")
        if let credentials = configuration.credentials {
            try check(
                mosquitto_username_pw_set(client, credentials.username, credentials.password),
                "credentials"
            )
        }
        if let tls = configuration.tls {
            if tls.caFile == nil {
                try check(mosquitto_int_option(client, MOSQ_OPT_TLS_USE_OS_CERTS, 1), "TLS system certificates")
            }
            try check(
                mosquitto_tls_set(client, tls.caFile, nil, tls.certificateFile, tls.keyFile, nil),
                "TLS files"
            )
        }
        if let will = configuration.will {
            let code = will.payload.withUnsafeBytes { payload in
                mosquitto_will_set_v5(
                    client,
                    will.topic,
                    Int32(payload.count),
                    payload.baseAddress,
                    Int32(will.qos),
                    will.retain,
                    nil
                )
            }
            try check(code, "will")
        }
        mosquitto_connect_v5_callback_set(client) { client, context, code, _, _ in
            guard let client, let context else { return }
            let callbacks = Unmanaged<CallbackContext>.fromOpaque(context).takeUnretainedValue()
            if code == 0 {
                let version = callbacks.protocolVersion.load(ordering: .relaxed)
                callbacks.continuation.yield(.connected(protocolVersion: Int(version)))
            } else if code == Int32(MQTT_RC_UNSUPPORTED_PROTOCOL_VERSION.rawValue)
                || code == Int32(CONNACK_REFUSED_PROTOCOL_VERSION.rawValue)
            {
                // An MQTT 3.1.1 broker: speak 3.1.1 from the next attempt on (the loop reconnects).
                mosquitto_int_option(client, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311)
                callbacks.protocolVersion.store(Int32(MQTT_PROTOCOL_V311), ordering: .relaxed)
                callbacks.continuation.yield(.disconnected(reason: "broker refused MQTT 5; trying MQTT 3.1.1"))
            } else {
                callbacks.continuation.yield(.disconnected(reason: String(cString: mosquitto_reason_string(code))))
            }
        }
        mosquitto_disconnect_v5_callback_set(client) { _, context, code, _ in
            guard let context else { return }
            let callbacks = Unmanaged<CallbackContext>.fromOpaque(context).takeUnretainedValue()
            guard code != 0 else { return }  // our own stop()
            callbacks.continuation.yield(.disconnected(reason: MQTTConnection.message(code)))
        }
        mosquitto_publish_v5_callback_set(client) { _, context, messageID, _, _ in
            guard let context else { return }
            let callbacks = Unmanaged<CallbackContext>.fromOpaque(context).takeUnretainedValue()
            callbacks.continuation.yield(.published(messageID: messageID))
        }
        mosquitto_message_v5_callback_set(client) { _, context, message, _ in
            guard let context, let message else { return }
            let callbacks = Unmanaged<CallbackContext>.fromOpaque(context).takeUnretainedValue()
            let payload =
                message.pointee.payloadlen > 0
                ? Array(UnsafeRawBufferPointer(start: message.pointee.payload, count: Int(message.pointee.payloadlen)))
                : []
            callbacks.continuation.yield(
                .received(
                    MQTTMessage(
                        topic: String(cString: message.pointee.topic),
                        payload: payload,
                        qos: Int(message.pointee.qos),
                        retain: message.pointee.retain
                    )
                )
            )
        }
    }

    private func check(_ code: Int32, _ operation: String) throws(MQTTError) {
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
private struct Handle: @unchecked Sendable {
    let client: OpaquePointer
    init(_ client: OpaquePointer) { self.client = client }
}

/// What libmosquitto's callbacks (on its network thread) reach through their `obj` pointer.
private final class CallbackContext: Sendable {
    let continuation: AsyncStream<MQTTEvent>.Continuation
    let protocolVersion = Atomic<Int32>(Int32(MQTT_PROTOCOL_V5))

    init(continuation: AsyncStream<MQTTEvent>.Continuation) { self.continuation = continuation }
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
