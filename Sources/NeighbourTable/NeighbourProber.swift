internal import CNetlink
import Glibc

/// Makes the kernel re-verify neighbours now, as `ip neigh change ADDRESS dev IFACE nud probe` does: the entry goes to
/// PROBE and the kernel sends its unicast probes at once (a silent host's entry fails within about 3 s) instead of
/// waiting for the entry to go stale. Needs CAP_NET_ADMIN; without it every call throws an error whose
/// ``NeighbourTableError/isPermissionDenied`` is true.
public final class NeighbourProber: @unchecked Sendable {  // the socket is used under `lock`
    private let socket: NetlinkSocket
    private let lock = NSLockLike()

    /// Opens the netlink socket, in the network namespace at `namespacePath` if given (for tests and tools).
    public init(namespacePath: String? = nil) throws {
        socket = try withNetworkNamespace(namespacePath) { () throws in
            try NetlinkSocket(groups: 0)
        }
    }

    /// Sets `entry` to PROBE (RTM_NEWNEIGH with NLM_F_REPLACE, as iproute2's `change`).
    /// - Throws: ``NeighbourTableError`` with the kernel's errno: EPERM without CAP_NET_ADMIN, ENOENT for an entry
    ///   that is gone.
    public func forceProbe(_ entry: NeighbourEntry) throws {
        let bare = entry.address.split(separator: "%", maxSplits: 1).first.map(String.init) ?? entry.address
        let family = entry.family == .ipv4 ? AF_INET : AF_INET6
        var bytes = [UInt8](repeating: 0, count: 16)
        guard inet_pton(family, bare, &bytes) == 1 else {
            throw NeighbourTableError("force probe \(entry.address): not an address", code: EINVAL)
        }
        let length = entry.family == .ipv4 ? 4 : 16
        lock.lock()
        defer { lock.unlock() }
        try socket.request(
            "force probe \(entry.address)",
            build: { header in
                header.pointee.nlmsg_type = UInt16(RTM_NEWNEIGH)
                header.pointee.nlmsg_flags = UInt16(NLM_F_REQUEST | NLM_F_REPLACE | NLM_F_ACK)
                let message = mnl_nlmsg_put_extra_header(header, MemoryLayout<ndmsg>.size)!
                    .assumingMemoryBound(to: ndmsg.self)
                message.pointee.ndm_family = UInt8(family)
                message.pointee.ndm_ifindex = entry.interfaceIndex
                message.pointee.ndm_state = UInt16(NUD_PROBE)
                bytes.withUnsafeBytes { mnl_attr_put(header, UInt16(NDA_DST), length, $0.baseAddress) }
            },
            handle: { _ in }
        )
    }
}

/// A pthread mutex (Foundation's NSLock without Foundation).
private final class NSLockLike: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    init() { pthread_mutex_init(&mutex, nil) }
    deinit { pthread_mutex_destroy(&mutex) }
    func lock() { pthread_mutex_lock(&mutex) }
    func unlock() { pthread_mutex_unlock(&mutex) }
}
