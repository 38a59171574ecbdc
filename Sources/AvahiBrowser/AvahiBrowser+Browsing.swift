// The browser's service type and service browsers: the rows they find (one resolver opened per row) and remove, and
// their settling. Runs on Avahi's poll thread or with the poll lock held (see the threading note in
// AvahiBrowser.swift).

internal import CAvahi
import Logging
import MonitoringLog

extension AvahiBrowser {
    // MARK: - Browsers and resolvers (poll thread or poll lock held)

    func startBrowsing() {
        guard browsingEnabled, let client, avahi_client_get_state(client) == AVAHI_CLIENT_S_RUNNING else { return }
        guard configuration.serviceTypes.isEmpty else {
            configuration.serviceTypes.forEach(addServiceBrowser)
            return
        }
        guard typeBrowser == nil else { return }
        let made = makeObject(operation: "avahi_service_type_browser_new") { client in
            avahi_service_type_browser_new(
                client,
                AvahiIfIndex(AVAHI_IF_UNSPEC),
                AvahiProtocol(AVAHI_PROTO_UNSPEC),
                self.configuration.domain,
                AvahiLookupFlags(0),
                { browser, interface, _, event, type, _, _, userdata in
                    instance(userdata).typeBrowserEvent(browser, interface, event, type)
                },
                Unmanaged.passUnretained(self).toOpaque()
            )
        }
        typeBrowser = track(made)
    }

    private func addServiceBrowser(_ type: String) {
        guard serviceBrowsers[type] == nil, client != nil else { return }
        let made = makeObject(operation: "avahi_service_browser_new") { client in
            avahi_service_browser_new(
                client,
                AvahiIfIndex(AVAHI_IF_UNSPEC),
                AvahiProtocol(AVAHI_PROTO_UNSPEC),
                type,
                self.configuration.domain,
                AvahiLookupFlags(0),
                { browser, interface, proto, event, name, type, domain, flags, userdata in
                    instance(userdata).serviceBrowserEvent(browser, interface, proto, event, name, type, domain, flags)
                },
                Unmanaged.passUnretained(self).toOpaque()
            )
        }
        serviceBrowsers[type] = track(made)
    }

    /// Waits for a new browser to settle, or logs why there is none (then `nil`: nothing of that browser follows).
    private func track(_ made: Result<OpaquePointer, AvahiError>) -> OpaquePointer? {
        switch made {
        case .success(let browser):
            awaitingAllForNow.insert(browser)
            awaitingCacheExhausted.insert(browser)
            return browser
        case .failure(let error):
            logBrowserFailure(error)
            return nil
        }
    }

    /// Logs a browser that could not be created or failed: at warning, but only once for an outage of the daemon.
    func logBrowserFailure(_ error: AvahiError) {
        let message: LogMessage
        let failed: Int
        switch browserFailures.record(code: error.code) {
        case .warning(let count): (message, failed) = (.avahiBrowserFailed, count)
        case .debug(let count): (message, failed) = (.avahiBrowserFailedAgain, count)
        }
        logger.log(message, ["avahi.error": "\(error)", "avahi.failed": "\(failed)"])
    }

    /// Frees every browser and resolver (the clients stay).
    func stopBrowsing() {
        for row in rows.values { if let resolver = row.resolver { avahi_service_resolver_free(resolver) } }
        for browser in recordBrowserHosts.keys { avahi_record_browser_free(browser) }
        for browser in serviceBrowsers.values { avahi_service_browser_free(browser) }
        if let typeBrowser { avahi_service_type_browser_free(typeBrowser) }
        forgetBrowsing()
    }

    /// Drops every browser and resolver pointer without freeing (their client frees them).
    func forgetBrowsing() {
        typeBrowser = nil
        serviceBrowsers = [:]
        rows = [:]
        resolverKeys = [:]
        followedHosts = [:]
        recordBrowserHosts = [:]
        awaitingAllForNow = []
        awaitingCacheExhausted = []
        refusedResolvers = 0
        for owner in objectCounts.keys { objectCounts[owner] = 0 }
        isClientPoolExhausted = false
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
        guard let name, let type, let domain, isAllowed(interface), client != nil else { return }
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
                releaseObject(of: avahi_service_resolver_get_client(resolver))
                avahi_service_resolver_free(resolver)
            }
            if let host = row.followedHost { unfollow(host) }
            logger.log(.avahiServiceRemoved, ["avahi.service": "\(key)"])
            return emit(.serviceRemoved(key))
        }
        guard rows[key] == nil else { return }
        emit(.serviceFound(key))
        let made = makeObject(operation: "avahi_service_resolver_new") { client in
            avahi_service_resolver_new(
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
        }
        switch made {
        case .success(let resolver):
            rows[key] = Row(resolver: resolver, browseFlags: flags.rawValue)
            resolverKeys[resolver] = key
        case .failure(let error):
            // The daemon refused the object on every client it lets the browser have (objects-per-client-max times
            // clients-max, or a failure of its own): this service stays unresolved, so it must not go unnoticed.
            rows[key] = Row(resolver: nil, browseFlags: flags.rawValue)
            // Refused because the daemon is gone: one warning for the outage, shared with the browsers that fail.
            refusedResolvers += 1
            let isWarning =
                BrowserFailureTally.outageCodes.contains(error.code)
                ? browserFailures.isFirstOfOutage(code: error.code) : refusedResolvers == 1
            logger.log(
                isWarning ? .avahiResolverRefused : .avahiResolverRefusedAgain,
                [
                    "avahi.service": "\(key)", "avahi.error": "\(error)", "avahi.refused": "\(refusedResolvers)",
                ]
            )
            emit(.resolveFailed(key, error))
        }
    }

    /// Notes a browser's CACHE_EXHAUSTED, ALL_FOR_NOW or FAILURE; reports when all have settled.
    private func settle(_ browser: OpaquePointer?, _ event: AvahiBrowserEvent) {
        guard let browser else { return }
        if event == AVAHI_BROWSER_FAILURE {
            logBrowserFailure(AvahiError(client: client, operation: "avahi_browser"))
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
}
