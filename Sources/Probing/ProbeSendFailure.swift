import Glibc

/// What a probe datagram's failed `sendto` means, from its `errno`: a pure decision, so that ``ActiveProber`` only
/// carries it out.
///
/// The prober's UDP sockets have `IP_RECVERR` (`IPV6_RECVERR`) on. Without it the kernel hides the one failure that
/// matters here: when it cannot make a neighbour entry for the address (the table is at `gc_thresh3`, which is global
/// across network namespaces; or the device's queue dropped the datagram), UDP drops the datagram and reports success
/// (only the `SndbufErrors` counter of `/proc/net/snmp` moves; checked with a device queue that takes nothing). With
/// it, that `sendto` fails with `ENOBUFS` (``noRoom``: the `neighbour-table` limit is reached). The option's price: an
/// error the kernel learns of later, for an earlier datagram (an ICMP port unreachable from a host that has nothing on
/// port 9, a resolution that failed), is reported by the next `sendto` on the socket, which then sends nothing
/// (``earlierDatagram``: send it again).
enum ProbeSendFailure: Sendable, Equatable {
    /// `ENOBUFS`: the kernel had no room for the datagram (no neighbour entry could be made, or the device's queue was
    /// full). Not sent; not retried (that would add to the pressure). A full queue of datagrams waiting for their
    /// address to resolve (`unres_qlen_bytes`) is no error: the kernel drops the oldest of them silently.
    case noRoom
    /// The error of an earlier datagram, reported now: this one was not sent, and may be sent again at once.
    case earlierDatagram
    /// Refused for itself (`EAGAIN`: the send buffer is full of datagrams waiting for their resolution; `EPERM`: a
    /// firewall; `ENETUNREACH` from a route gone…). Not sent; counted as a failure.
    case refused

    /// The errors an ICMP or ICMPv6 message (or a failed resolution, which the kernel reports as an ICMP host
    /// unreachable to itself) sets on a UDP socket with `IP_RECVERR`; a `sendto` reports them for an earlier datagram.
    static let asynchronousErrors: Set<Int32> = [
        ECONNREFUSED, EHOSTUNREACH, EHOSTDOWN, ENETUNREACH, ENOPROTOOPT, EPROTO, EMSGSIZE, EOPNOTSUPP, EACCES,
    ]

    /// How often a datagram is sent again after ``earlierDatagram`` before it counts as ``refused``: the socket holds
    /// one pending error, which the failed `sendto` cleared, so a second retry is needed only if another error came
    /// in between.
    static let retries = 2

    /// Classifies a failed send.
    ///
    /// - Parameters:
    ///   - code: The `errno` of the failed `sendto`.
    ///   - attempt: How many times this datagram was sent again already (0 for its first send).
    /// - Returns: ``noRoom`` for `ENOBUFS`; ``earlierDatagram`` for one of ``asynchronousErrors`` while
    ///   `attempt < retries` (a synchronous `ENETUNREACH` or `EACCES` thus fails after the retries); else ``refused``.
    /// - Complexity: O(1).
    init(errno code: Int32, attempt: Int) {
        if code == ENOBUFS {
            self = .noRoom
        } else if attempt < Self.retries, Self.asynchronousErrors.contains(code) {
            self = .earlierDatagram
        } else {
            self = .refused
        }
    }
}
