internal import CAvahi
import Logging
import MonitoringLog
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#endif

/// Browses DNS-SD services through avahi-daemon and reports them as an ``AvahiEvent`` stream.
///
/// The browser owns an Avahi threaded poll and one client (more when one is not allowed enough objects: see
/// ``Performance``). It browses every service type (or the
/// configured ones), keeps **one resolver open per browse row** — a row is one
/// (interface, protocol, name, type, domain), see ``AvahiServiceKey`` — and resolves each row for
/// the row's own address family, so IPv4 rows give IPv4 addresses and IPv6 rows IPv6 addresses.
/// Because resolvers stay open, later changes of address, port or TXT are reported too. A resolver
/// reports one address per row, so the browser also follows the A and AAAA records of every host
/// name a resolved row points to (one record browser per record type and host, kept while a row
/// points there): every address of the host is reported, and its later additions and removals.
///
/// The browser survives the daemon: the client is created with `AVAHI_CLIENT_NO_FAIL`, a failed
/// client is freed and created again, and when no client can be created at all (no system bus)
/// it retries with exponential backoff. After a reconnect every service is reported again.
///
/// ```swift
/// let browser = AvahiBrowser(configuration: .init(interfaces: ["eth0"]), logger: logger)
/// try await withThrowingDiscardingTaskGroup { group in
///     group.addTask { try await browser.run() }
///     for await event in browser.events { … }
/// }
/// ```
///
/// ## Threads
/// Avahi calls back on its poll thread with the poll lock held; events are yielded from there into
/// ``events``. `run()` and ``setBrowsing(_:)`` take the poll lock for every Avahi call they make.
///
/// ## Performance
/// One resolver per browse row: a service seen on *i* interfaces and both protocols costs 2*i* resolvers in the
/// daemon, and each followed host two record browsers. avahi-daemon allows one client `objects-per-client-max`
/// of them (1,024 in Debian's stock configuration), so the browser spreads them over as many clients as it needs,
/// filling each until the daemon refuses it one (one more D-Bus connection per ~400 services); the daemon's work per
/// object is the same whichever client holds it. Rows are kept in a dictionary: O(1) work per Avahi callback.
// @unchecked Sendable: every mutable stored property below `lifecycle` is touched only on Avahi's
// poll thread (inside callbacks, which hold the poll lock), or by other threads while they hold
// the poll lock, or by `run()` before the poll thread starts and after it has stopped. `lifecycle`
// is a lock (NIOLockedValueBox); callbacks never take it, so the only lock order is lifecycle -> poll lock.
// The code of the extensions in AvahiBrowser+*.swift runs under the same rule (each file's header says where).
// The state below is internal, not private, only for those extensions: nothing outside the browser touches it.
public final class AvahiBrowser: @unchecked Sendable {
    /// What to browse and how to reconnect.
    public struct Configuration: Sendable {
        /// Names of the interfaces whose services are reported (`["eth0"]`); empty means all.
        /// Matched by name on every event, so an interface that appears later is picked up.
        public var interfaces: [String]
        /// Service types to browse (`["_http._tcp"]`); empty means every type, found through a
        /// service-type browser.
        public var serviceTypes: [String]
        /// The browsing domain.
        public var domain: String
        /// The first delay before creating the client again; doubles on every failed attempt.
        public var initialReconnectDelay: Duration
        /// The largest delay between attempts.
        public var maximumReconnectDelay: Duration

        /// Creates a configuration; the defaults browse every type on every interface in `local`.
        public init(
            interfaces: [String] = [],
            serviceTypes: [String] = [],
            domain: String = "local",
            initialReconnectDelay: Duration = .milliseconds(250),
            maximumReconnectDelay: Duration = .seconds(10)
        ) {
            self.interfaces = interfaces
            self.serviceTypes = serviceTypes
            self.domain = domain
            self.initialReconnectDelay = initialReconnectDelay
            self.maximumReconnectDelay = maximumReconnectDelay
        }
    }

    /// The configuration the browser was created with.
    public let configuration: Configuration
    /// Everything the browser observes, in order. Unbounded; finishes when `run()` returns.
    public let events: AsyncStream<AvahiEvent>

    let continuation: AsyncStream<AvahiEvent>.Continuation
    let logger: Logger
    let allowedInterfaces: Set<String>
    private let lifecycle = NIOLockedValueBox(Lifecycle())

    private struct Lifecycle {
        var isPolling = false  // the poll thread runs and `poll` may be locked
        var wantsBrowsing = true
        var hasRun = false
    }

    struct Row {
        var resolver: OpaquePointer?
        var browseFlags: UInt32
        var last: AvahiService?
        /// The host whose address records this row keeps followed (its last resolution's host name).
        var followedHost: String?
    }

    /// The record browsers of one host's addresses, how many rows point to the host, and which browsers have not
    /// yet passed the daemon's cache.
    struct FollowedHost {
        var browsers: [OpaquePointer] = []
        var rows = 0
        var awaitingCache: Set<OpaquePointer> = []
    }

    // Poll-thread state (see the Sendable note above).
    var poll: OpaquePointer?  // AvahiThreadedPoll*
    var client: OpaquePointer?  // AvahiClient*
    var reconnectTimer: OpaquePointer?  // AvahiTimeout*
    var reconnectDelay: Duration
    var browsingEnabled = true
    var typeBrowser: OpaquePointer?
    var serviceBrowsers: [String: OpaquePointer] = [:]
    var rows: [AvahiServiceKey: Row] = [:]
    var resolverKeys: [OpaquePointer: AvahiServiceKey] = [:]
    var followedHosts: [String: FollowedHost] = [:]
    var recordBrowserHosts: [OpaquePointer: String] = [:]
    var awaitingAllForNow: Set<OpaquePointer> = []
    var awaitingCacheExhausted: Set<OpaquePointer> = []
    /// The name of every interface index seen, so that what Avahi removes from an interface that is gone (an
    /// unplugged adapter, a deleted veth) still carries the name it was reported with.
    var interfaceNames: [AvahiIfIndex: String] = [:]
    /// The resolvers the daemon refused since browsing (re)started: the first is a warning, the rest debug.
    var refusedResolvers = 0
    /// The browsers that failed since the client last ran: an outage of the daemon is one warning.
    var browserFailures = BrowserFailureTally()
    /// The clients opened besides `client` when it was full (see AvahiBrowser+ClientPool.swift); freed with it.
    var extraClients: [OpaquePointer] = []
    /// How many browsers and resolvers each client holds (a client missing here holds none).
    var objectCounts: [OpaquePointer: Int] = [:]
    /// How many the daemon let a client hold before it refused one (a client missing here was never refused).
    var objectCapacities: [OpaquePointer: Int] = [:]
    /// The daemon accepts no more clients, or a new one refused its first object: no more are opened until browsing
    /// starts over.
    var isClientPoolExhausted = false

    /// Creates a browser; nothing happens until ``run()``.
    ///
    /// - Parameters:
    ///   - configuration: What to browse and how to reconnect.
    ///   - logger: Receives `info` (connection states) and `debug` (every event) messages.
    public init(configuration: Configuration = Configuration(), logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        self.allowedInterfaces = Set(configuration.interfaces)
        self.reconnectDelay = configuration.initialReconnectDelay
        (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    /// Connects to avahi-daemon and browses until the calling task is cancelled, then frees every
    /// Avahi object, stops the poll thread and finishes ``events``.
    ///
    /// Call it once per browser. A missing daemon or bus is not an error: it is reported as
    /// ``AvahiServerState/unavailable(_:)`` and retried.
    ///
    /// - Throws: ``AvahiError`` if Avahi's poll thread cannot be created or started.
    public func run() async throws {
        lifecycle.withLockedValue { state in
            precondition(!state.hasRun, "AvahiBrowser.run() may be called only once")
            state.hasRun = true
        }
        defer { continuation.finish() }
        guard let poll = avahi_threaded_poll_new() else {
            throw AvahiError(code: Int32(AVAHI_ERR_NO_MEMORY), operation: "avahi_threaded_poll_new")
        }
        self.poll = poll
        let api = avahi_threaded_poll_get(poll)!
        let me = Unmanaged.passUnretained(self).toOpaque()
        reconnectTimer = api.pointee.timeout_new(api, nil, { _, userdata in instance(userdata).connect() }, me)
        let started = avahi_threaded_poll_start(poll)
        guard started >= 0 else {
            api.pointee.timeout_free(reconnectTimer)
            avahi_threaded_poll_free(poll)
            throw AvahiError(code: started, operation: "avahi_threaded_poll_start")
        }
        lifecycle.withLockedValue { state in
            state.isPolling = true
            avahi_threaded_poll_lock(poll)
            browsingEnabled = state.wantsBrowsing
            connect()
            avahi_threaded_poll_unlock(poll)
        }

        await waitForCancellation()

        lifecycle.withLockedValue { $0.isPolling = false }  // from here on setBrowsing() leaves Avahi alone
        avahi_threaded_poll_stop(poll)
        // The poll thread has stopped: the rest needs no lock.
        dropClient()
        api.pointee.timeout_free(reconnectTimer)
        reconnectTimer = nil
        avahi_threaded_poll_free(poll)
        self.poll = nil
        logger.log(.avahiBrowserStopped)
    }

    /// Turns browsing off or on without dropping the connection to the daemon.
    ///
    /// Off frees every browser and resolver; no ``AvahiEvent/serviceRemoved(_:)`` is reported, the
    /// consumer decides what the silence means. On creates them again (once the daemon runs), so
    /// every service is reported again. Works before `run()` too (it sets the starting state).
    ///
    /// - Parameter enabled: Whether to browse.
    /// - Precondition: Not called on Avahi's poll thread (event consumers never are).
    public func setBrowsing(_ enabled: Bool) {
        lifecycle.withLockedValue { state in
            state.wantsBrowsing = enabled
            guard state.isPolling, let poll else { return }
            avahi_threaded_poll_lock(poll)
            defer { avahi_threaded_poll_unlock(poll) }
            guard browsingEnabled != enabled else { return }
            browsingEnabled = enabled
            logger.log(.avahiBrowsing, ["avahi.enabled": "\(enabled)"])
            if enabled {
                startBrowsing()
            } else {
                stopBrowsing()
                dropExtraClients()
            }
        }
    }

    private func waitForCancellation() async {
        let (stream, cancelled) = AsyncStream<Never>.makeStream()
        await withTaskCancellationHandler {
            for await _ in stream {}
        } onCancel: {
            cancelled.finish()
        }
    }
}

/// The browser behind a callback's `userdata` (passed unretained: `run()` keeps it alive).
func instance(_ userdata: UnsafeMutableRawPointer?) -> AvahiBrowser {
    Unmanaged<AvahiBrowser>.fromOpaque(userdata!).takeUnretainedValue()
}
