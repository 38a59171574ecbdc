import DiscoveryTerms
import NetworkInterfaces

/// What the mDNS source (Avahi) reports: its state, the interfaces it browses and withdraws, and *service instances*,
/// one per (interface, IP protocol, service) as mDNS sees them, duplicates and all, with the address records of their
/// hosts. The store's mDNS host table groups them into devices; the resync schedule follows the source's state.
public enum MDNSEvent: Sendable, Equatable {
    /// A browser saw an instance; it is resolved later (``serviceResolved(_:)``). Confirms a known instance during a
    /// resync: Avahi's all-for-now comes once every instance was *seen*, not resolved.
    case serviceFound(ServiceInstanceKey)
    /// An instance was resolved for the first time, or changed (address, port, TXT, host name).
    case serviceResolved(ServiceInstance)
    /// An instance is gone.
    case serviceRemoved(ServiceInstanceKey)
    /// Resolving an instance failed for now (its resolver stays open: a later resolution may still come). Nothing
    /// waits on it meanwhile.
    case resolveFailed(ServiceInstanceKey)
    /// The browser of one service type has reported everything it currently knows (Avahi's ALL_FOR_NOW).
    case typeSettled(String)
    /// The source has reported everything it currently knows (Avahi's ALL_FOR_NOW from every browser so far). With
    /// an empty cache (a daemon that just started) this can come before the service types are known: a resync
    /// only ends for the types that were seen again.
    case browsingSettled
    /// The state of the source's connection to its daemon changed; `hostName` is this host's mDNS name, if known.
    case sourceState(SourceState, hostName: String?)
    /// The interfaces browsed are now these (sorted): an interface went up or down. Not about devices: a device
    /// coming or going never changes them.
    case browsedInterfaces([String])
    /// The daemon withdrew everything it had learnt on this interface because the interface went down (Avahi does so
    /// when a link goes down or away). What it reported there is kept and confirmed when it is reported again once
    /// the link is back; the rest goes at the withdrawal's deadline (``MDNSHostTable/finishWithdrawal(of:final:)``).
    /// Removals on the interface from now on until ``interfaceReturned(_:)`` are part of the withdrawal, not
    /// departures.
    case interfaceWithdrawn(String)
    /// The daemon reports from an interface it had withdrawn again: its link is back.
    case interfaceReturned(String)
    /// An address of a host that resolved services point to appeared (its A or AAAA record): every address of the
    /// host, not only the one a resolution picked.
    case addressAdded(HostAddress)
    /// An address record of such a host is gone.
    case addressRemoved(HostAddress)
    /// The source follows the host's address records from now on; ``addressesKnown(hostName:)`` comes once it
    /// reported those it knew. A new device of that host waits for it (see ``MDNSHostTable``'s settling).
    case followingAddresses(hostName: String)
    /// The source reported every address of the host it knew.
    case addressesKnown(hostName: String)
}

/// One address record of a host as seen on one interface over one IP protocol (the same address may be seen on
/// several).
public struct HostAddress: Hashable, Sendable {
    /// The host name, e.g. `tv.local`.
    public var hostName: String
    /// The address in text form; a link-local IPv6 address carries a `%interface` scope.
    public var address: String
    /// The interface name, e.g. `eth0`.
    public var interface: String
    /// The IP protocol the record was seen over.
    public var ipProtocol: IPProtocol

    /// Creates an address record.
    public init(hostName: String, address: String, interface: String, ipProtocol: IPProtocol) {
        self.hostName = hostName
        self.address = address
        self.interface = interface
        self.ipProtocol = ipProtocol
    }
}

/// The identity of one service instance as seen on one interface over one IP protocol.
public struct ServiceInstanceKey: Hashable, Sendable, Codable {
    /// The interface name, e.g. `eth0`.
    public var interface: String
    /// The IP protocol the instance was seen over.
    public var ipProtocol: IPProtocol
    /// The instance name, e.g. `Living Room TV`.
    public var name: String
    /// The service type, e.g. `_airplay._tcp`.
    public var type: String
    /// The domain, e.g. `local`.
    public var domain: String

    /// Creates a key.
    public init(interface: String, ipProtocol: IPProtocol, name: String, type: String, domain: String) {
        self.interface = interface
        self.ipProtocol = ipProtocol
        self.name = name
        self.type = type
        self.domain = domain
    }

    /// The service this is an instance of, independent of interface and protocol.
    public var service: ServiceKey { ServiceKey(name: name, type: type, domain: domain) }
}

/// A resolved service instance.
public struct ServiceInstance: Hashable, Sendable {
    /// Which instance.
    public var key: ServiceInstanceKey
    /// The host name the service points to, e.g. `tv.local`.
    public var hostName: String
    /// The addresses the host name resolved to, in text form; link-local IPv6 carry a `%interface` scope.
    public var addresses: [String]
    /// The port.
    public var port: UInt16
    /// The TXT record, in order.
    public var txt: [TXTEntry]

    /// Creates an instance.
    public init(key: ServiceInstanceKey, hostName: String, addresses: [String], port: UInt16, txt: [TXTEntry]) {
        self.key = key
        self.hostName = hostName
        self.addresses = addresses
        self.port = port
        self.txt = txt
    }
}
