internal import CAvahi
import Logging
import MonitoringLog
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#endif

/// Browses DNS-SD services through avahi-daemon and reports them as an ``AvahiEvent`` stream.
///
/// The browser owns an Avahi threaded poll and one client. It browses every service type (or the
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
/// One resolver per browse row: a service seen on *i* interfaces and both protocols costs 2*i*
/// resolvers in the daemon. Rows are kept in a dictionary: O(1) work per Avahi callback.
// @unchecked Sendable: every mutable stored property below `lifecycle` is touched only on Avahi's
// poll thread (inside callbacks, which hold the poll lock), or by other threads while they hold
// the poll lock, or by `run()` before the poll thread starts and after it has stopped. `lifecycle`
// is a lock (NIOLockedValueBox); callbacks never take it, so the only lock order is lifecycle -> poll lock.
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

    private let continuation: AsyncStream<AvahiEvent>.Continuation
    private let logger: Logger
    private let allowedInterfaces: Set<String>
    private let lifecycle = NIOLockedValueBox(Lifecycle())

    private struct Lifecycle {
        var isPolling = false  // the poll thread runs and `poll` may be locked
        var wantsBrowsing = true
        var hasRun = false
    }

    private struct Row {
        var resolver: OpaquePointer?
        var browseFlags: UInt32
        var last: AvahiService?
        /// The host whose address records this row keeps followed (its last resolution's host name).
        var followedHost: String?
    }

    /// The record browsers of one host's addresses, how many rows point to the host, and which browsers have not
    /// yet passed the daemon's cache.
    private struct FollowedHost {
        var browsers: [OpaquePointer] = []
        var rows = 0
        var awaitingCache: Set<OpaquePointer> = []
    }

    // Poll-thread state (see the Sendable note above).
    private var poll: OpaquePointer?  // AvahiThreadedPoll*
    private var client: OpaquePointer?  // AvahiClient*
    private var reconnectTimer: OpaquePointer?  // AvahiTimeout*
    private var reconnectDelay: Duration
    private var browsingEnabled = true
    private var typeBrowser: OpaquePointer?
    private var serviceBrowsers: [String: OpaquePointer] = [:]
    private var rows: [AvahiServiceKey: Row] = [:]
    private var resolverKeys: [OpaquePointer: AvahiServiceKey] = [:]
    private var followedHosts: [String: FollowedHost] = [:]
    private var recordBrowserHosts: [OpaquePointer: String] = [:]
    private var awaitingAllForNow: Set<OpaquePointer> = []
    private var awaitingCacheExhausted: Set<OpaquePointer> = []
    /// The name of every interface index seen, so that what Avahi removes from an interface that is gone (an
    /// unplugged adapter, a deleted veth) still carries the name it was reported with.
    private var interfaceNames: [AvahiIfIndex: String] = [:]
    /// The resolvers the daemon refused since browsing (re)started: the first is a warning, the rest debug.
    private var refusedResolvers = 0

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
            if enabled { startBrowsing() } else { stopBrowsing() }
        }
    }

    // MARK: - Client (poll thread or poll lock held)

    /// Frees the current client (if any) and creates a new one.
    private func connect() {
        dropClient()
        var error: Int32 = 0
        let newClient = avahi_client_new(
            avahi_threaded_poll_get(poll),
            AVAHI_CLIENT_NO_FAIL,
            { client, state, userdata in instance(userdata).clientChanged(client, state) },
            Unmanaged.passUnretained(self).toOpaque(),
            &error
        )
        if let newClient {
            client = newClient
            return
        }
        // Callbacks that ran inside avahi_client_new referred to the client it has freed.
        client = nil
        forgetBrowsing()
        let failure = AvahiError(code: error, operation: "avahi_client_new")
        logger.log(.avahiUnavailable, ["avahi.error": "\(failure)"])
        emit(.serverState(.unavailable(failure), hostName: nil))
        scheduleReconnect()
    }

    /// Frees the client, which frees all of its browsers and resolvers.
    private func dropClient() {
        forgetBrowsing()
        if let client { avahi_client_free(client) }
        client = nil
    }

    private func clientChanged(_ newClient: OpaquePointer?, _ state: AvahiClientState) {
        guard let newClient else { return }
        client = newClient  // also during avahi_client_new, before it has returned the pointer
        let hostName = { avahi_client_get_host_name_fqdn(newClient).map { String(cString: $0) } }
        switch state {
        case AVAHI_CLIENT_S_RUNNING:
            reconnectDelay = configuration.initialReconnectDelay
            report(.running, hostName: hostName())
            startBrowsing()
        case AVAHI_CLIENT_S_REGISTERING:
            report(.registering, hostName: hostName())
        case AVAHI_CLIENT_S_COLLISION:
            report(.collision, hostName: hostName())
        case AVAHI_CLIENT_CONNECTING:
            report(.connecting, hostName: nil)
        case AVAHI_CLIENT_FAILURE:
            report(.failure(AvahiError(client: newClient, operation: "avahi_client")), hostName: nil)
            forgetBrowsing()  // they belong to the failed client and are freed with it
            scheduleReconnect()  // frees it and creates a new client, outside this callback
        default:
            break
        }
    }

    private func report(_ state: AvahiServerState, hostName: String?) {
        logger.log(.avahiServerState, ["avahi.state": "\(state)", "avahi.host": "\(hostName ?? "")"])
        emit(.serverState(state, hostName: hostName))
    }

    private func scheduleReconnect() {
        let delay = reconnectDelay
        reconnectDelay = min(delay * 2, configuration.maximumReconnectDelay)
        var now = timeval()
        gettimeofday(&now, nil)
        let (seconds, attoseconds) = delay.components
        let micros = Int(now.tv_usec) + Int(attoseconds / 1_000_000_000_000)
        var when = timeval(tv_sec: now.tv_sec + Int(seconds) + micros / 1_000_000, tv_usec: micros % 1_000_000)
        let api = avahi_threaded_poll_get(poll)!
        api.pointee.timeout_update(reconnectTimer, &when)
        logger.log(.avahiReconnect, ["avahi.delay": "\(delay)"])
    }

    // MARK: - Browsers and resolvers (poll thread or poll lock held)

    private func startBrowsing() {
        guard browsingEnabled, let client, avahi_client_get_state(client) == AVAHI_CLIENT_S_RUNNING else { return }
        guard configuration.serviceTypes.isEmpty else {
            configuration.serviceTypes.forEach(addServiceBrowser)
            return
        }
        guard typeBrowser == nil else { return }
        typeBrowser = avahi_service_type_browser_new(
            client,
            AvahiIfIndex(AVAHI_IF_UNSPEC),
            AvahiProtocol(AVAHI_PROTO_UNSPEC),
            configuration.domain,
            AvahiLookupFlags(0),
            { browser, interface, _, event, type, _, _, userdata in
                instance(userdata).typeBrowserEvent(browser, interface, event, type)
            },
            Unmanaged.passUnretained(self).toOpaque()
        )
        track(typeBrowser, operation: "avahi_service_type_browser_new")
    }

    private func addServiceBrowser(_ type: String) {
        guard serviceBrowsers[type] == nil, let client else { return }
        let browser = avahi_service_browser_new(
            client,
            AvahiIfIndex(AVAHI_IF_UNSPEC),
            AvahiProtocol(AVAHI_PROTO_UNSPEC),
            type,
            configuration.domain,
            AvahiLookupFlags(0),
            { browser, interface, proto, event, name, type, domain, flags, userdata in
                instance(userdata).serviceBrowserEvent(browser, interface, proto, event, name, type, domain, flags)
            },
            Unmanaged.passUnretained(self).toOpaque()
        )
        serviceBrowsers[type] = browser
        track(browser, operation: "avahi_service_browser_new")
    }

    private func track(_ browser: OpaquePointer?, operation: String) {
        if let browser {
            awaitingAllForNow.insert(browser)
            awaitingCacheExhausted.insert(browser)
        } else {
            logger.log(
                .avahiBrowserFailed,
                ["avahi.error": "\(AvahiError(client: client, operation: operation))"]
            )
        }
    }

    /// Frees every browser and resolver (the client stays).
    private func stopBrowsing() {
        for row in rows.values { if let resolver = row.resolver { avahi_service_resolver_free(resolver) } }
        for browser in recordBrowserHosts.keys { avahi_record_browser_free(browser) }
        for browser in serviceBrowsers.values { avahi_service_browser_free(browser) }
        if let typeBrowser { avahi_service_type_browser_free(typeBrowser) }
        forgetBrowsing()
    }

    /// Drops every browser and resolver pointer without freeing (their client frees them).
    private func forgetBrowsing() {
        typeBrowser = nil
        serviceBrowsers = [:]
        rows = [:]
        resolverKeys = [:]
        followedHosts = [:]
        recordBrowserHosts = [:]
        awaitingAllForNow = []
        awaitingCacheExhausted = []
        refusedResolvers = 0
    }

    private func typeBrowserEvent(
        _ browser: OpaquePointer?,
        _ interface: AvahiIfIndex,
        _ event: AvahiBrowserEvent,
        _ type: UnsafePointer<CChar>?
    ) {
        if event == AVAHI_BROWSER_NEW, let type, isAllowed(interface) {
            addServiceBrowser(String(cString: type))
        } else if event != AVAHI_BROWSER_NEW && event != AVAHI_BROWSER_REMOVE {
            settle(browser, event)  // a removed type needs nothing: its rows are removed one by one
        }
    }

    private func serviceBrowserEvent(
        _ browser: OpaquePointer?,
        _ interface: AvahiIfIndex,
        _ proto: AvahiProtocol,
        _ event: AvahiBrowserEvent,
        _ name: UnsafePointer<CChar>?,
        _ type: UnsafePointer<CChar>?,
        _ domain: UnsafePointer<CChar>?,
        _ flags: AvahiLookupResultFlags
    ) {
        guard event == AVAHI_BROWSER_NEW || event == AVAHI_BROWSER_REMOVE else { return settle(browser, event) }
        guard let name, let type, let domain, isAllowed(interface), let client else { return }
        let key = AvahiServiceKey(
            interfaceIndex: interface,
            interfaceName: interfaceName(interface),
            ipProtocol: proto == AvahiProtocol(AVAHI_PROTO_INET) ? .ipv4 : .ipv6,
            name: String(cString: name),
            type: String(cString: type),
            domain: String(cString: domain)
        )
        if event == AVAHI_BROWSER_REMOVE {
            guard let row = rows.removeValue(forKey: key) else { return }
            if let resolver = row.resolver {
                resolverKeys[resolver] = nil
                avahi_service_resolver_free(resolver)
            }
            if let host = row.followedHost { unfollow(host) }
            logger.log(.avahiServiceRemoved, ["avahi.service": "\(key)"])
            return emit(.serviceRemoved(key))
        }
        guard rows[key] == nil else { return }
        emit(.serviceFound(key))
        let resolver = avahi_service_resolver_new(
            client,
            interface,
            proto,
            name,
            type,
            domain,
            proto,
            AvahiLookupFlags(0),
            { resolver, interface, _, event, _, _, _, host, address, port, txt, flags, userdata in
                instance(userdata).resolverEvent(resolver, interface, event, host, address, port, txt, flags)
            },
            Unmanaged.passUnretained(self).toOpaque()
        )
        rows[key] = Row(resolver: resolver, browseFlags: flags.rawValue)
        if let resolver {
            resolverKeys[resolver] = key
        } else {
            // The daemon refuses objects beyond its per-client limit (objects-per-client-max, 1,024 by default):
            // this service stays unresolved, so it must not go unnoticed.
            let error = AvahiError(client: client, operation: "avahi_service_resolver_new")
            refusedResolvers += 1
            logger.log(
                refusedResolvers == 1 ? .avahiResolverRefused : .avahiResolverRefusedAgain,
                [
                    "avahi.service": "\(key)", "avahi.error": "\(error)", "avahi.refused": "\(refusedResolvers)",
                ]
            )
            emit(.resolveFailed(key, error))
        }
    }

    private func resolverEvent(
        _ resolver: OpaquePointer?,
        _ interface: AvahiIfIndex,
        _ event: AvahiResolverEvent,
        _ host: UnsafePointer<CChar>?,
        _ address: UnsafePointer<AvahiAddress>?,
        _ port: UInt16,
        _ txt: UnsafeMutablePointer<AvahiStringList>?,
        _ flags: AvahiLookupResultFlags
    ) {
        guard let resolver, let key = resolverKeys[resolver], var row = rows[key] else { return }
        guard event == AVAHI_RESOLVER_FOUND else {
            row.last = nil
            rows[key] = row
            let failure = AvahiError(client: client, operation: "avahi_service_resolver")
            logger.log(.avahiResolveFailed, ["avahi.service": "\(key)", "avahi.error": "\(failure)"])
            return emit(.resolveFailed(key, failure))
        }
        let service = AvahiService(
            key: key,
            hostName: host.map { String(cString: $0) } ?? "",
            addresses: address.map { [format($0, interface)] } ?? [],
            port: port,
            txt: records(txt),
            flags: AvahiResultFlags(rawValue: row.browseFlags | flags.rawValue)
        )
        guard service != row.last else { return }
        row.last = service
        let host = Self.canonicalHostName(service.hostName)
        if row.followedHost != host {  // before the resolution is reported: a consumer learns to wait for addresses
            if let old = row.followedHost { unfollow(old) }
            row.followedHost = host.isEmpty ? nil : host
            if !host.isEmpty { follow(host) }
        }
        rows[key] = row
        logger.log(.avahiServiceResolved, ["avahi.service": "\(key)"])
        emit(.serviceResolved(service))
    }

    /// One more row points to `host`: its address records are followed from the first.
    private func follow(_ host: String) {
        if followedHosts[host] != nil {
            followedHosts[host]?.rows += 1
            return
        }
        var followed = FollowedHost(rows: 1)
        emit(.followingAddresses(hostName: host))
        for type in [UInt16(AVAHI_DNS_TYPE_A), UInt16(AVAHI_DNS_TYPE_AAAA)] {
            let browser = avahi_record_browser_new(
                client,
                AvahiIfIndex(AVAHI_IF_UNSPEC),
                AvahiProtocol(AVAHI_PROTO_UNSPEC),
                host,
                UInt16(AVAHI_DNS_CLASS_IN),
                type,
                AvahiLookupFlags(0),
                { browser, interface, proto, event, _, _, type, rdata, size, _, userdata in
                    instance(userdata).recordBrowserEvent(browser, interface, proto, event, type, rdata, size)
                },
                Unmanaged.passUnretained(self).toOpaque()
            )
            guard let browser else {
                let failure = AvahiError(client: client, operation: "avahi_record_browser_new")
                logger.log(.avahiBrowserFailed, ["avahi.error": "\(failure)"])
                continue
            }
            followed.browsers.append(browser)
            followed.awaitingCache.insert(browser)
            recordBrowserHosts[browser] = host
        }
        followedHosts[host] = followed
        if followed.awaitingCache.isEmpty { emit(.addressesKnown(hostName: host)) }  // nothing to wait for
    }

    /// One row fewer points to `host`: when none does, its record browsers are freed.
    private func unfollow(_ host: String) {
        guard var followed = followedHosts[host] else { return }
        followed.rows -= 1
        guard followed.rows <= 0 else {
            followedHosts[host] = followed
            return
        }
        for browser in followed.browsers {
            recordBrowserHosts[browser] = nil
            avahi_record_browser_free(browser)
        }
        followedHosts[host] = nil
    }

    private func recordBrowserEvent(
        _ browser: OpaquePointer?,
        _ interface: AvahiIfIndex,
        _ proto: AvahiProtocol,
        _ event: AvahiBrowserEvent,
        _ type: UInt16,
        _ rdata: UnsafeRawPointer?,
        _ size: Int
    ) {
        guard let browser, let host = recordBrowserHosts[browser] else { return }
        guard event == AVAHI_BROWSER_NEW || event == AVAHI_BROWSER_REMOVE else {
            // CACHE_EXHAUSTED, or ALL_FOR_NOW / FAILURE if that never comes: what the cache had is reported.
            if followedHosts[host]?.awaitingCache.remove(browser) != nil,
                followedHosts[host]?.awaitingCache.isEmpty == true
            {
                emit(.addressesKnown(hostName: host))
            }
            return
        }
        guard let rdata, isAllowed(interface) else { return }
        let bytes = UnsafeRawBufferPointer(start: rdata, count: size)
        guard let text = Self.addressText(type: type, rdata: bytes) else { return }
        let name = interfaceName(interface)
        let isLinkLocal = bytes.count == 16 && Self.isLinkLocalIPv6(bytes[0], bytes[1])
        let address = AvahiHostAddress(
            hostName: host,
            address: isLinkLocal ? "\(text)%\(name)" : text,
            interfaceIndex: interface,
            interfaceName: name,
            ipProtocol: proto == AvahiProtocol(AVAHI_PROTO_INET) ? .ipv4 : .ipv6
        )
        logger.log(
            .avahiAddressRecord,
            ["avahi.address": "\(address)", "avahi.new": "\(event == AVAHI_BROWSER_NEW)"]
        )
        emit(event == AVAHI_BROWSER_NEW ? .addressAdded(address) : .addressRemoved(address))
    }

    /// Notes a browser's CACHE_EXHAUSTED, ALL_FOR_NOW or FAILURE; reports when all have settled.
    private func settle(_ browser: OpaquePointer?, _ event: AvahiBrowserEvent) {
        guard let browser else { return }
        if event == AVAHI_BROWSER_FAILURE {
            logger.log(
                .avahiBrowserFailed,
                ["avahi.error": "\(AvahiError(client: client, operation: "avahi_browser"))"]
            )
        }
        if event != AVAHI_BROWSER_ALL_FOR_NOW, awaitingCacheExhausted.remove(browser) != nil,
            awaitingCacheExhausted.isEmpty
        {
            emit(.cacheExhausted)
        }
        if event != AVAHI_BROWSER_CACHE_EXHAUSTED, awaitingAllForNow.remove(browser) != nil {
            if let type = serviceBrowsers.first(where: { $0.value == browser })?.key { emit(.typeSettled(type)) }
            if awaitingAllForNow.isEmpty { emit(.allForNow) }
        }
    }

    // MARK: - Conversions

    private func emit(_ event: AvahiEvent) {
        continuation.yield(event)
    }

    private func isAllowed(_ interface: AvahiIfIndex) -> Bool {
        allowedInterfaces.isEmpty || allowedInterfaces.contains(interfaceName(interface))
    }

    /// The interface's name: the one it had when first seen (Linux hands out indices in increasing order, so an
    /// index stays one interface's; one renamed while the browser runs keeps its first name here), or "" for an
    /// index that never had one.
    private func interfaceName(_ index: AvahiIfIndex) -> String {
        guard index > 0 else { return "" }
        if let name = interfaceNames[index] { return name }
        var buffer = [CChar](repeating: 0, count: Int(IF_NAMESIZE) + 1)
        guard if_indextoname(UInt32(index), &buffer) != nil else { return "" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        interfaceNames[index] = name
        return name
    }

    /// The canonical form of a host name: lowercase, without a trailing dot.
    static func canonicalHostName(_ name: String) -> String {
        var name = name.lowercased()
        while name.hasSuffix(".") { name.removeLast() }
        return name
    }

    /// The text of an A record's 4 bytes or an AAAA record's 16 (`inet_ntop`); `nil` for anything else.
    static func addressText(type: UInt16, rdata: UnsafeRawBufferPointer) -> String? {
        let family: Int32
        switch (type, rdata.count) {
        case (UInt16(AVAHI_DNS_TYPE_A), 4): family = AF_INET
        case (UInt16(AVAHI_DNS_TYPE_AAAA), 16): family = AF_INET6
        default: return nil
        }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(family, rdata.baseAddress, &buffer, socklen_t(buffer.count)) != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether an IPv6 address whose first two bytes are these is link-local (`fe80::/10`).
    static func isLinkLocalIPv6(_ first: UInt8, _ second: UInt8) -> Bool {
        first == 0xfe && second & 0xc0 == 0x80
    }

    /// Textual address; a link-local IPv6 address gets `%interface`.
    private func format(_ address: UnsafePointer<AvahiAddress>, _ interface: AvahiIfIndex) -> String {
        var buffer = [CChar](repeating: 0, count: Int(AVAHI_ADDRESS_STR_MAX))
        avahi_address_snprint(&buffer, buffer.count, address)
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let bytes = address.pointee.data.ipv6.address
        let isLinkLocal =
            address.pointee.proto == AvahiProtocol(AVAHI_PROTO_INET6) && Self.isLinkLocalIPv6(bytes.0, bytes.1)
        return isLinkLocal ? "\(text)%\(interfaceName(interface))" : text
    }

    /// The TXT strings in wire order (Avahi's list keeps it; `avahi_string_list_to_string`, and so
    /// avahi-browse, prints them reversed).
    private func records(_ list: UnsafeMutablePointer<AvahiStringList>?) -> [TXTRecord] {
        var records: [TXTRecord] = []
        var node = list
        while let current = node {
            let bytes = UnsafeBufferPointer(
                start: avahi_string_list_get_text(current),
                count: avahi_string_list_get_size(current)
            )
            records.append(TXTRecord(bytes))
            node = avahi_string_list_get_next(current)
        }
        return records
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
private func instance(_ userdata: UnsafeMutableRawPointer?) -> AvahiBrowser {
    Unmanaged<AvahiBrowser>.fromOpaque(userdata!).takeUnretainedValue()
}
