import AvahiBrowser
import PeerScanCore
import PeerScanModel

/// Avahi as a discovery source: the events of an ``AvahiBrowser``, in PeerScanCore's terms.
struct AvahiDiscoverySource: DiscoverySource {
    let browser: AvahiBrowser
    let events: AsyncStream<DiscoveryEvent>
    private let continuation: AsyncStream<DiscoveryEvent>.Continuation

    init(browser: AvahiBrowser) {
        self.browser = browser
        (events, continuation) = AsyncStream.makeStream()
    }

    /// Runs the browser and translates its events until cancelled.
    func run() async throws {
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { try await browser.run() }
            group.addTask { [continuation] in
                for await event in browser.events {
                    if let event = Self.discoveryEvent(event) { continuation.yield(event) }
                }
            }
        }
        continuation.finish()
    }

    func setBrowsing(_ enabled: Bool) { browser.setBrowsing(enabled) }

    /// The discovery event for an Avahi event; `nil` for those that matter only to Avahi (resolve failures, cache
    /// exhaustion). A failed resolve keeps its resolver open, so a later answer still arrives.
    static func discoveryEvent(_ event: AvahiEvent) -> DiscoveryEvent? {
        switch event {
        case .serverState(let state, let hostName):
            let sourceState: SourceState =
                switch state {
                case .connecting: .connecting
                case .registering: .registering
                case .running: .running
                case .collision: .collision
                case .failure(let error): .failure(reason: error.description)
                case .unavailable(let error): .unavailable(reason: error.description)
                }
            return .sourceState(sourceState, hostName: hostName)
        case .serviceResolved(let service):
            return .serviceResolved(
                ServiceInstance(
                    key: instanceKey(service.key),
                    hostName: service.hostName,
                    addresses: service.addresses,
                    port: service.port,
                    txt: service.txt.map { TXTEntry(key: $0.key, value: $0.stringValue) }
                )
            )
        case .serviceFound(let key):
            return .serviceFound(instanceKey(key))
        case .serviceRemoved(let key):
            return .serviceRemoved(instanceKey(key))
        case .typeSettled(let type):
            return .typeSettled(type)
        case .allForNow:
            return .browsingSettled
        case .resolveFailed, .cacheExhausted:
            return nil
        }
    }

    private static func instanceKey(_ key: AvahiServiceKey) -> ServiceInstanceKey {
        ServiceInstanceKey(
            interface: key.interfaceName.isEmpty ? "if\(key.interfaceIndex)" : key.interfaceName,
            ipProtocol: key.ipProtocol == .ipv4 ? .ipv4 : .ipv6,
            name: key.name,
            type: key.type,
            domain: key.domain
        )
    }
}
