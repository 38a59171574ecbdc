// The resolution of a row, reported as a service. Runs on Avahi's poll thread, in the resolver's callback (see the
// threading note in AvahiBrowser.swift).

internal import CAvahi
import Logging
import MonitoringLog

extension AvahiBrowser {
    func resolverEvent(
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
}
