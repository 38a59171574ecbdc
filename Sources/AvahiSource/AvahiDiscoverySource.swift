import AvahiBrowser
import Discovery
import DiscoveryTerms
import NIOConcurrencyHelpers
import NetworkInterfaces

/// Avahi as a discovery source: the events of an ``AvahiBrowser``, in PeerScanCore's terms, and the interfaces it
/// browses.
///
/// With no interface configured, Avahi browses every interface that is up and multicast-capable
/// (``NetworkInterfaces/browsedByDefault(_:)``); the source reports that set whenever it changes (an interface goes
/// up or down, checked every ``interfaceCheckInterval``), never because a device comes or goes.
///
/// When an interface goes down, avahi-daemon withdraws everything it learnt there, one removal at a time. The source
/// tells those removals from departures (``InterfaceWithdrawals``), so that the store keeps the devices of a link
/// that comes back.
public struct AvahiDiscoverySource: DiscoverySource {
    let browser: AvahiBrowser
    public let events: AsyncStream<DiscoveryEvent>
    private let continuation: AsyncStream<DiscoveryEvent>.Continuation
    private let configuredInterfaces: [String]
    private let interfaceCheckInterval: Duration
    private let currentInterfaces: @Sendable () -> [String]
    private let isInterfaceUp: @Sendable (String) -> Bool

    /// Creates the source.
    ///
    /// - Parameters:
    ///   - browser: The browser.
    ///   - interfaces: The configured interfaces; empty for Avahi's default (every multicast-capable interface).
    ///   - interfaceCheckInterval: How often the default interfaces are checked.
    ///   - currentInterfaces: The interfaces browsed by default now.
    ///   - isInterfaceUp: Whether an interface is up now (asked when Avahi removes something learnt on it).
    public init(
        browser: AvahiBrowser,
        interfaces: [String],
        interfaceCheckInterval: Duration = .seconds(2),
        currentInterfaces: @escaping @Sendable () -> [String] = { NetworkInterfaces.browsedByDefault() },
        isInterfaceUp: @escaping @Sendable (String) -> Bool = NetworkInterfaces.isUp
    ) {
        self.browser = browser
        self.configuredInterfaces = interfaces
        self.interfaceCheckInterval = interfaceCheckInterval
        self.currentInterfaces = currentInterfaces
        self.isInterfaceUp = isInterfaceUp
        (events, continuation) = AsyncStream.makeStream()
    }

    /// The interfaces browsed now: the configured ones, sorted, or the default ones.
    public var interfaces: [String] {
        configuredInterfaces.isEmpty ? currentInterfaces() : configuredInterfaces.sorted()
    }

    /// Runs the browser and translates its events until cancelled.
    public func run() async throws {
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { try await browser.run() }
            // Shared by the translation and the link check below; each yields while it holds the lock, so the events
            // stay in the order the withdrawals were decided in.
            let withdrawals = NIOLockedValueBox(InterfaceWithdrawals(isUp: isInterfaceUp))
            group.addTask { [continuation] in
                for await event in browser.events {
                    guard let event = Self.mdnsEvent(event) else { continue }
                    withdrawals.withLockedValue { withdrawals in
                        for event in withdrawals.events(for: event) { continuation.yield(.mdns(event)) }
                    }
                }
            }
            group.addTask { [continuation, interfaceCheckInterval] in
                // A withdrawn link that is up again is back, whether or not Avahi has reported from it yet (on a large
                // LAN it takes a while): the grace for what was learnt there counts from now.
                while (try? await Task.sleep(for: interfaceCheckInterval / 2)) != nil {
                    withdrawals.withLockedValue { withdrawals in
                        for event in withdrawals.linksBackUp() { continuation.yield(.mdns(event)) }
                    }
                }
            }
            if configuredInterfaces.isEmpty {
                group.addTask { [continuation, interfaceCheckInterval, currentInterfaces] in
                    await Self.followInterfaces(currentInterfaces, every: interfaceCheckInterval) {
                        continuation.yield(.mdns(.browsedInterfaces($0)))
                    }
                }
            }
        }
        continuation.finish()
    }

    public func setBrowsing(_ enabled: Bool) { browser.setBrowsing(enabled) }

    /// Reports the interfaces now, then every change, checking every `interval`, until the task is cancelled.
    ///
    /// - Parameters:
    ///   - current: The interfaces now.
    ///   - interval: How often to check.
    ///   - clock: The clock `interval` is measured on.
    ///   - report: Called with the first list and with each one that differs from the last reported.
    static func followInterfaces(
        _ current: () -> [String],
        every interval: Duration,
        clock: any Clock<Duration> = ContinuousClock(),
        report: ([String]) -> Void
    ) async {
        var reported = current()
        report(reported)
        while (try? await clock.sleep(for: interval)) != nil {
            let now = current()
            if now != reported {
                reported = now
                report(now)
            }
        }
    }

    /// The mDNS event for an Avahi event; `nil` for cache exhaustion, which matters only to Avahi. A failed
    /// resolve keeps its resolver open, so a later answer still arrives; meanwhile nothing waits on it.
    static func mdnsEvent(_ event: AvahiEvent) -> MDNSEvent? {
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
        case .addressAdded(let address):
            return .addressAdded(hostAddress(address))
        case .addressRemoved(let address):
            return .addressRemoved(hostAddress(address))
        case .followingAddresses(let host):
            return .followingAddresses(hostName: host)
        case .addressesKnown(let host):
            return .addressesKnown(hostName: host)
        case .resolveFailed(let key, _):
            return .resolveFailed(instanceKey(key))
        case .cacheExhausted:
            return nil
        }
    }

    private static func hostAddress(_ address: AvahiHostAddress) -> HostAddress {
        HostAddress(
            hostName: address.hostName,
            address: address.address,
            interface: interface(address.interfaceName, index: address.interfaceIndex),
            ipProtocol: address.ipProtocol
        )
    }

    /// An interface's name; `if<index>` for an index that had none.
    private static func interface(_ name: String, index: Int32) -> String {
        name.isEmpty ? "if\(index)" : name
    }

    private static func instanceKey(_ key: AvahiServiceKey) -> ServiceInstanceKey {
        ServiceInstanceKey(
            interface: interface(key.interfaceName, index: key.interfaceIndex),
            ipProtocol: key.ipProtocol,
            name: key.name,
            type: key.type,
            domain: key.domain
        )
    }
}

/// Tells the removals avahi-daemon makes because an interface went down from departures.
///
/// Avahi withdraws an interface when its link goes down (or away): every service and address record learnt there is
/// removed, as if each device had left. A removal on an interface that is not up any more is such a withdrawal:
/// ``MDNSEvent/interfaceWithdrawn(_:)`` goes before the first, and the store keeps what was learnt there. The
/// first thing reported on it again, or the interface found up again (``linksBackUp()``), means the link is back
/// (``MDNSEvent/interfaceReturned(_:)``). A connection to Avahi that is lost ends every withdrawal: the store
/// resyncs everything then.
struct InterfaceWithdrawals: Sendable {
    /// The interfaces withdrawn and not reported from since.
    private(set) var withdrawn: Set<String> = []
    let isUp: @Sendable (String) -> Bool

    /// The events to report for `event`: itself, after the withdrawal or return it reveals, if any.
    mutating func events(for event: MDNSEvent) -> [MDNSEvent] {
        switch event {
        case .serviceRemoved(let key):
            return withdrawal(on: key.interface) + [event]
        case .addressRemoved(let record):
            return withdrawal(on: record.interface) + [event]
        case .serviceFound(let key):
            return comingBack(on: key.interface) + [event]
        case .serviceResolved(let instance):
            return comingBack(on: instance.key.interface) + [event]
        case .addressAdded(let record):
            return comingBack(on: record.interface) + [event]
        case .sourceState(let state, _) where !state.isRunning:
            withdrawn = []
            return [event]
        default:
            return [event]
        }
    }

    /// The returns of the withdrawn interfaces that are up again.
    mutating func linksBackUp() -> [MDNSEvent] {
        withdrawn.filter(isUp).sorted().flatMap { comingBack(on: $0) }
    }

    private mutating func withdrawal(on interface: String) -> [MDNSEvent] {
        guard !withdrawn.contains(interface), !isUp(interface) else { return [] }
        withdrawn.insert(interface)
        return [.interfaceWithdrawn(interface)]
    }

    private mutating func comingBack(on interface: String) -> [MDNSEvent] {
        guard withdrawn.remove(interface) != nil else { return [] }
        return [.interfaceReturned(interface)]
    }
}
