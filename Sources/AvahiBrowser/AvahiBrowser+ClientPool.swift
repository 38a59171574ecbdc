// The clients that hold the browser's Avahi objects. avahi-daemon limits the browsers and resolvers of one client
// (`objects-per-client-max`, 1,024 in Debian's stock configuration), not the number of clients (`clients-max`, 4,096):
// a LAN needing more objects than one client may hold gets more clients, each its own D-Bus connection served by the
// same poll thread. Runs on Avahi's poll thread or with the poll lock held (see the threading note in
// AvahiBrowser.swift).

internal import CAvahi
import Logging
import MonitoringLog

extension AvahiBrowser {
    /// Creates one Avahi object on a client that has room, opening another client when every one is full.
    ///
    /// A client is filled until the daemon refuses it an object (`AVAHI_ERR_TOO_MANY_OBJECTS`): the count it holds then
    /// is its capacity from then on (1,024 with Debian's stock `objects-per-client-max`; a daemon with the limit raised
    /// never refuses, and one client holds everything, as before). Learning it costs one refused call per client.
    ///
    /// - Parameters:
    ///   - operation: The Avahi call, for the error (`"avahi_service_resolver_new"`).
    ///   - make: Creates the object on the client it is given; `nil` on failure (the client's errno says why).
    /// - Returns: The object, or the last refusal when no client can hold it (the daemon refuses new clients, or a
    ///   fresh client refuses its first object, or the failure is not about the limit).
    /// - Complexity: O(*c*) in the number of clients (one per 1,024 objects with the stock limit).
    func makeObject(
        operation: String,
        _ make: (OpaquePointer) -> OpaquePointer?
    ) -> Result<OpaquePointer, AvahiError> {
        guard let client else { return .failure(AvahiError(client: nil, operation: operation)) }
        var refusal = AvahiError(client: client, operation: operation)
        for candidate in [client] + extraClients where hasRoom(candidate) {
            switch attempt(make, on: candidate, operation: operation) {
            case .success(let object): return .success(object)
            case .failure(let error) where error.code == Self.tooManyObjectsCode: refusal = error
            case .failure(let error): return .failure(error)
            }
        }
        guard !isClientPoolExhausted else { return .failure(refusal) }
        guard let extra = openExtraClient() else {
            isClientPoolExhausted = true
            return .failure(refusal)
        }
        let made = attempt(make, on: extra, operation: operation)
        if case .failure = made {
            // A fresh client refused its first object (or the daemon refuses one more client): more clients would not
            // help, and this one is not asked again.
            isClientPoolExhausted = true
            objectCapacities[extra] = 0
        }
        return made
    }

    private func attempt(
        _ make: (OpaquePointer) -> OpaquePointer?,
        on candidate: OpaquePointer,
        operation: String
    ) -> Result<OpaquePointer, AvahiError> {
        if let object = make(candidate) {
            objectCounts[candidate, default: 0] += 1
            return .success(object)
        }
        let error = AvahiError(client: candidate, operation: operation)
        if error.code == Self.tooManyObjectsCode {  // the daemon's objects-per-client-max: this client is full
            objectCapacities[candidate] = objectCounts[candidate, default: 0]
        }
        return .failure(error)
    }

    private func hasRoom(_ candidate: OpaquePointer) -> Bool {
        objectCounts[candidate, default: 0] < objectCapacities[candidate, default: .max]
    }

    /// One object of `owner` was freed (or refused on it before being counted: then nothing changes).
    func releaseObject(of owner: OpaquePointer?) {
        guard let owner, let count = objectCounts[owner] else { return }
        objectCounts[owner] = max(0, count - 1)
    }

    /// Opens one more client, or returns `nil` (logged) when the daemon does not accept it.
    private func openExtraClient() -> OpaquePointer? {
        var error: Int32 = 0
        let extra = avahi_client_new(
            avahi_threaded_poll_get(poll),
            AvahiClientFlags(0),
            { client, state, userdata in instance(userdata).extraClientChanged(client, state) },
            Unmanaged.passUnretained(self).toOpaque(),
            &error
        )
        guard let extra else {
            let failure = AvahiError(code: error, operation: "avahi_client_new")
            logBrowserFailure(failure)
            return nil
        }
        extraClients.append(extra)
        objectCounts[extra] = 0
        logger.log(.avahiClientAdded, ["avahi.clients": "\(extraClients.count + 1)"])
        return extra
    }

    /// An extra client failed (the daemon went away, or the bus dropped the connection): its objects are gone, so the
    /// browser starts over as after the main client's failure (it is freed by the reconnect, not in its own callback).
    private func extraClientChanged(_ extra: OpaquePointer?, _ state: AvahiClientState) {
        guard state == AVAHI_CLIENT_FAILURE, let extra, extraClients.contains(extra) else { return }
        let failure = AvahiServerState.failure(AvahiError(client: extra, operation: "avahi_client"))
        logger.log(.avahiServerState, ["avahi.state": "\(failure)", "avahi.host": ""])
        stopBrowsing()  // frees what the failed client held too (Avahi only forgets it) and everything else
        // When the daemon went away the main client fails too and reconnects by itself; otherwise start over here.
        if let client, avahi_client_get_state(client) != AVAHI_CLIENT_FAILURE { scheduleReconnect() }
    }

    /// Frees every client but the main one (with the objects they still hold).
    func dropExtraClients() {
        for extra in extraClients { avahi_client_free(extra) }
        extraClients = []
        objectCounts = [:]
        objectCapacities = [:]
        isClientPoolExhausted = false
    }

    static let tooManyObjectsCode = Int32(AVAHI_ERR_TOO_MANY_OBJECTS)
    static let tooManyClientsCode = Int32(AVAHI_ERR_TOO_MANY_CLIENTS)
}
