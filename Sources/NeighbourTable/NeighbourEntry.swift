internal import POSIXText

/// The address family of a neighbour entry.
public enum NeighbourFamily: Sendable, Hashable {
    /// IPv4 (ARP).
    case ipv4
    /// IPv6 (NDP).
    case ipv6
}

/// The kernel's state of a neighbour entry (`NUD_*` in `linux/neighbour.h`).
public enum NeighbourState: Sendable, Hashable {
    /// Being resolved, no answer yet.
    case incomplete
    /// Confirmed within the kernel's reachable time.
    case reachable
    /// Resolved once, not confirmed since its reachable time.
    case stale
    /// Traffic was sent while stale: a probe follows after a short delay.
    case delay
    /// Being verified with unicast probes.
    case probe
    /// Did not answer the probes.
    case failed
    /// Never resolved (multicast, loopback, point-to-point).
    case noARP
    /// Configured by hand; never verified.
    case permanent
    /// No state (an entry being created or destroyed).
    case none
}

/// One entry of the kernel's neighbour table.
public struct NeighbourEntry: Sendable, Hashable {
    /// The address family.
    public var family: NeighbourFamily
    /// The address in text form (`inet_ntop`); a link-local IPv6 address (`fe80::/10`) carries a `%interface` scope.
    public var address: String
    /// The interface's index.
    public var interfaceIndex: Int32
    /// The interface's name; empty if the kernel no longer knows the index.
    public var interfaceName: String
    /// The MAC address it resolves to, lowercase `aa:bb:cc:dd:ee:ff`; `nil` when the kernel gave none (an entry that
    /// is incomplete or failed) or one that is not 6 bytes long.
    public var macAddress: String?
    /// The kernel's state of the entry.
    public var state: NeighbourState
    /// Whether the neighbour is a router (`NTF_ROUTER`, IPv6).
    public var isRouter: Bool
    /// How long ago the kernel last confirmed the neighbour is there (`nda_cacheinfo.ndm_confirmed`); `nil` if not
    /// given.
    public var confirmedAgo: Duration?

    /// Creates an entry.
    public init(
        family: NeighbourFamily,
        address: String,
        interfaceIndex: Int32,
        interfaceName: String,
        macAddress: String?,
        state: NeighbourState,
        isRouter: Bool = false,
        confirmedAgo: Duration? = nil
    ) {
        self.family = family
        self.address = address
        self.interfaceIndex = interfaceIndex
        self.interfaceName = interfaceName
        self.macAddress = macAddress
        self.state = state
        self.isRouter = isRouter
        self.confirmedAgo = confirmedAgo
    }
}

/// A change of the kernel's neighbour table, as ``NeighbourMonitor`` reports it.
public enum NeighbourEvent: Sendable, Equatable {
    /// The whole table: at start, and again after the monitor's socket overran (`ENOBUFS`: changes were lost). It
    /// replaces everything reported before.
    case table([NeighbourEntry])
    /// An entry was added or changed (`RTM_NEWNEIGH`).
    case updated(NeighbourEntry)
    /// An entry was deleted (`RTM_DELNEIGH`).
    case removed(NeighbourEntry)
}

/// A netlink operation on the neighbour table failed.
public struct NeighbourTableError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What was being done, e.g. `bind`, `dump`, `force probe 10.0.0.7`.
    public var operation: String
    /// The `errno` value.
    public var code: Int32

    /// Creates an error.
    public init(_ operation: String, code: Int32) {
        self.operation = operation
        self.code = code
    }

    /// Whether the kernel refused for lack of privilege (`EPERM`, `EACCES`).
    public var isPermissionDenied: Bool { code == EPERM || code == EACCES }

    public var description: String { "\(operation): \(POSIXText.errorDescription(code)) (errno \(code))" }
}

#if canImport(Glibc)
import Glibc
#endif
