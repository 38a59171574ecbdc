/// What the neighbour source and the question source observed, in the device table's terms
/// (``DeviceTable/observe(_:interfaces:now:)``): no state of the sources' own stands between (unlike mDNS rows, which
/// the mDNS host table groups, settles and resyncs first); the store passes every one through unchanged.
public enum NeighbourObservation: Sendable, Equatable {
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
