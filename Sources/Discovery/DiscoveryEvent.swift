import NetworkInterfaces
import PeerScanModel

/// What a discovery source tells the daemon: its state, and what it observed.
///
/// The mDNS source reports *service instances*: one per (interface, IP protocol, service) as mDNS sees them,
/// duplicates and all, which the store's mDNS host table groups into devices; other sources report
/// ``Observation``s, which the device table takes directly.
public enum DiscoveryEvent: Sendable, Equatable {
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
    /// Something a source observed that the device table takes as it is: no state of the source's own stands between
    /// (unlike mDNS rows, which the mDNS host table groups, settles and resyncs first).
    case observed(Observation)
    /// What the Wi-Fi source observed (nl80211): the wireless interfaces and the access points in range.
    case wireless(WirelessObservation)
    /// What the Bluetooth LE source observed (BlueZ): the controllers and the devices advertising.
    case bluetooth(BluetoothObservation)
}

/// What a source observed, in the device table's terms (``DeviceTable/observe(_:interfaces:now:)``).
///
/// The seam for sources that need no table of their own in the store: a new kind of observation is a case here and
/// the device table's rule for it; the store passes every one through unchanged.
public enum Observation: Sendable, Equatable {
    /// The kernel's neighbour table as a whole (at start, when scanning is switched on, and after the source lost
    /// track of changes): it replaces every neighbour reported before.
    case neighbourTable([Neighbour])
    /// A neighbour entry was added or changed.
    case neighbourUpdated(Neighbour)
    /// A neighbour entry was deleted (the kernel forgot it).
    case neighbourRemoved(Neighbour)
    /// A host answered a ``HostQuestion``: it is there, whatever the kernel's entries for it say.
    case hostAnswered(hostName: String, address: String)
}

/// An entry of the kernel's neighbour table (ARP for IPv4, NDP for IPv6): an address on a link, the MAC address it
/// resolves to, and how sure the kernel is of it.
public struct Neighbour: Hashable, Sendable {
    /// The kernel's view of an entry (`NUD_*`). Entries the kernel never resolves (`NOARP`: multicast, loopback,
    /// point-to-point) are not reported.
    public enum State: String, Hashable, Sendable {
        /// Being resolved, no answer yet.
        case incomplete
        /// Answered recently.
        case reachable
        /// Answered once; not verified since the kernel's reachable time.
        case stale
        /// Traffic was sent to a stale entry; a verification follows.
        case delay
        /// Being verified.
        case probe
        /// Did not answer the kernel's probes.
        case failed
        /// Configured by hand; never verified.
        case permanent
    }

    /// The address in text form; a link-local IPv6 address carries a `%interface` scope.
    public var address: String
    /// The interface name, e.g. `eth0`.
    public var interface: String
    /// The MAC address, lowercase `aa:bb:cc:dd:ee:ff`; `nil` while unresolved or failed.
    public var macAddress: String?
    /// The entry's state.
    public var state: State
    /// When the neighbour last confirmed it is there (an answer to the kernel's probe, or traffic from it), on the
    /// daemon's monotonic clock; `nil` if the kernel did not say.
    public var lastConfirmed: Duration?

    /// Creates an entry.
    public init(address: String, interface: String, macAddress: String?, state: State, lastConfirmed: Duration?) {
        self.address = address
        self.interface = interface
        self.macAddress = macAddress
        self.state = state
        self.lastConfirmed = lastConfirmed
    }
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
