// The browser's Avahi client: creating it, following its state, reconnecting with backoff. Runs on Avahi's poll
// thread or with the poll lock held (see the threading note in AvahiBrowser.swift).

internal import CAvahi
import Logging
import MonitoringLog

#if canImport(Glibc)
import Glibc
#endif

extension AvahiBrowser {
    // MARK: - Client (poll thread or poll lock held)

    /// Frees the current client (if any) and creates a new one.
    func connect() {
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
    func dropClient() {
        forgetBrowsing()
        dropExtraClients()
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
            browserFailures.clientRan()
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

    func scheduleReconnect() {
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
}
