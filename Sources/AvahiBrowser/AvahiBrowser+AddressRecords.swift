// The A and AAAA record browsers of the hosts resolved rows point to: every address of a host, as it comes and goes.
// Runs on Avahi's poll thread or with the poll lock held (see the threading note in AvahiBrowser.swift).

internal import CAvahi
import Logging
import MonitoringLog

extension AvahiBrowser {
    /// One more row points to `host`: its address records are followed from the first.
    func follow(_ host: String) {
        if followedHosts[host] != nil {
            followedHosts[host]?.rows += 1
            return
        }
        var followed = FollowedHost(rows: 1)
        emit(.followingAddresses(hostName: host))
        for type in [UInt16(AVAHI_DNS_TYPE_A), UInt16(AVAHI_DNS_TYPE_AAAA)] {
            let made = makeObject(operation: "avahi_record_browser_new") { client in
                avahi_record_browser_new(
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
            }
            guard case .success(let browser) = made else {
                if case .failure(let failure) = made { logBrowserFailure(failure) }
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
    func unfollow(_ host: String) {
        guard var followed = followedHosts[host] else { return }
        followed.rows -= 1
        guard followed.rows <= 0 else {
            followedHosts[host] = followed
            return
        }
        for browser in followed.browsers {
            recordBrowserHosts[browser] = nil
            releaseObject(of: avahi_record_browser_get_client(browser))
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
}
