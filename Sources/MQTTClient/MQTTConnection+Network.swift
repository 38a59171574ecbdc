// The network thread's state: connect, wait on the socket, read, write, ping, back off, and carry out a stop. It runs
// on the connection's reader thread only (ReaderThread.loop's prepare and handle), never elsewhere.

import AsyncPrimitives
internal import CMosquitto

/// libmosquitto driven without a thread of its own: what a connection's network thread does between two waits.
///
/// A connection that fails — an attempt, a read, a write, a missed keep-alive — is reported as
/// ``MQTTEvent/disconnected(reason:)`` (unless stopping) and tried again after the backoff, which doubles up to
/// ``MQTTConfiguration/reconnectDelay``'s upper bound and starts again at its lower bound once connected.
/// libmosquitto's own `mosquitto_loop_forever` gives up for good on some failures (`MOSQ_ERR_EAI`,
/// `MOSQ_ERR_TLS`), which a daemon must not.
struct NetworkLoop {
    private let client: OpaquePointer
    private let configuration: MQTTConfiguration
    private let events: AsyncStream<MQTTEvent>.Continuation
    private let clock = ContinuousClock()
    private var connected = false
    /// When the next attempt is due, after a failure.
    private var retryAt: ContinuousClock.Instant?
    private var delay: Duration
    /// Until when a stop goes on writing what was queued (the DISCONNECT last), once stopping.
    private var stopDeadline: ContinuousClock.Instant?

    /// How long a wait lasts at most while connected: the keep-alive is checked (and pinged) between waits.
    static let keepAliveCheck = Duration.seconds(1)
    /// How long a stop goes on writing what was queued, while connected.
    static let stopGrace = Duration.seconds(2)

    /// Creates the state of a connection that has not connected yet.
    init(client: OpaquePointer, configuration: MQTTConfiguration, events: AsyncStream<MQTTEvent>.Continuation) {
        self.client = client
        self.configuration = configuration
        self.events = events
        self.delay = configuration.reconnectDelay.lowerBound
    }

    /// Connects if due, pings if due, and says what to wait for: the socket (and room to write while libmosquitto
    /// has something to write), or the backoff's end; `nil` once stopped (and what was queued written).
    mutating func prepare(stopping: Bool) -> ReaderThread.Interest? {
        if stopping {
            let deadline = stopDeadline ?? clock.now + Self.stopGrace
            stopDeadline = deadline
            guard connected, clock.now < deadline else { return nil }
        }
        if !connected {
            if let retryAt, clock.now < retryAt { return ReaderThread.Interest([], timeout: retryAt - clock.now) }
            let code = mosquitto_connect(
                client,
                configuration.host,
                Int32(configuration.port),
                Int32(configuration.keepAlive)
            )
            guard code == MOSQ_ERR_SUCCESS.rawValue else { return failed(code, stopping: stopping) }
            connected = true
            retryAt = nil
        }
        let code = mosquitto_loop_misc(client)
        let socket = mosquitto_socket(client)
        guard code == MOSQ_ERR_SUCCESS.rawValue, socket >= 0 else {
            return failed(code == MOSQ_ERR_SUCCESS.rawValue ? MOSQ_ERR_NO_CONN.rawValue : code, stopping: stopping)
        }
        delay = configuration.reconnectDelay.lowerBound
        let wanted: PollEvents = mosquitto_want_write(client) ? [.readable, .writable] : .readable
        var timeout = Self.keepAliveCheck
        if let stopDeadline { timeout = min(timeout, max(.zero, stopDeadline - clock.now)) }
        return ReaderThread.Interest([Watched(socket, for: wanted)], timeout: timeout)
    }

    /// Reads what arrived (libmosquitto's callbacks report it) and writes what is queued, as the socket allows.
    mutating func handle(_ ready: [PollEvents], stopping: Bool) {
        guard connected, let events = ready.first, !events.isEmpty else { return }
        if !events.isDisjoint(with: [.readable, .failed]) {
            let code = mosquitto_loop_read(client, 1)
            guard code == MOSQ_ERR_SUCCESS.rawValue else { return failure(code, stopping: stopping) }
        }
        if events.contains(.writable) {
            let code = mosquitto_loop_write(client, 1)
            guard code == MOSQ_ERR_SUCCESS.rawValue else { return failure(code, stopping: stopping) }
        }
    }

    /// The connection failed with `code`: reported, and retried after the backoff; what to wait for meanwhile.
    private mutating func failed(_ code: Int32, stopping: Bool) -> ReaderThread.Interest? {
        failure(code, stopping: stopping)
        guard !stopping, let retryAt else { return nil }
        return ReaderThread.Interest([], timeout: max(.zero, retryAt - clock.now))
    }

    private mutating func failure(_ code: Int32, stopping: Bool) {
        connected = false
        guard !stopping else { return }  // a stop's own disconnection is no failure
        events.yield(.disconnected(reason: MQTTConnection.message(code)))
        retryAt = clock.now + delay
        delay = min(delay * 2, configuration.reconnectDelay.upperBound)
    }
}
