internal import CNetlink
import Glibc

/// A `NETLINK_ROUTE` socket through libmnl: requests and the messages that answer them, or the multicast groups it
/// joined. Closed when released.
final class NetlinkSocket {
    private let socket: OpaquePointer
    /// Its netlink port id.
    let portID: UInt32
    private var sequence = UInt32(truncatingIfNeeded: time(nil))

    /// Opens a socket in the calling thread's network namespace and joins `groups` (an `RTMGRP_*` mask; 0 for a
    /// socket that only sends requests).
    init(groups: UInt32) throws {
        guard let opened = mnl_socket_open(NETLINK_ROUTE) else { throw NeighbourTableError("socket", code: errno) }
        guard mnl_socket_bind(opened, groups, pid_t(MNL_SOCKET_AUTOPID)) >= 0 else {
            let code = errno
            mnl_socket_close(opened)
            throw NeighbourTableError("bind", code: code)
        }
        socket = opened
        portID = mnl_socket_get_portid(opened)
    }

    deinit { mnl_socket_close(socket) }

    /// The file descriptor, to poll.
    var fileDescriptor: Int32 { mnl_socket_get_fd(socket) }

    /// Sends a request built by `build` (given the message header, with its sequence number set) and hands every
    /// message of the answer to `handle`, until the kernel says it is done (the end of a dump, or an
    /// acknowledgement).
    func request(
        _ operation: String,
        build: (UnsafeMutablePointer<nlmsghdr>) -> Void,
        handle: @escaping (UnsafePointer<nlmsghdr>) -> Void
    ) throws {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: Self.bufferSize, alignment: 8)
        defer { buffer.deallocate() }
        sequence &+= 1
        let header = mnl_nlmsg_put_header(buffer)!
        header.pointee.nlmsg_seq = sequence
        build(header)
        guard mnl_socket_sendto(socket, header, Int(header.pointee.nlmsg_len)) >= 0 else {
            throw NeighbourTableError(operation, code: errno)
        }
        while true {
            let received = mnl_socket_recvfrom(socket, buffer, Self.bufferSize)
            guard received >= 0 else { throw NeighbourTableError(operation, code: errno) }
            let result = Self.run(buffer, count: received, sequence: sequence, portID: portID, handle: handle)
            if result < 0 { throw NeighbourTableError(operation, code: errno) }
            if result == MNL_CB_STOP { return }
        }
    }

    /// Receives what is queued (without blocking: call once the descriptor is readable) and hands every message to
    /// `handle`.
    func receive(handle: @escaping (UnsafePointer<nlmsghdr>) -> Void) throws {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: Self.bufferSize, alignment: 8)
        defer { buffer.deallocate() }
        let received = recv(fileDescriptor, buffer, Self.bufferSize, Int32(MSG_DONTWAIT))
        guard received >= 0 else {
            if errno == EAGAIN || errno == EINTR { return }
            throw NeighbourTableError("receive", code: errno)
        }
        if Self.run(buffer, count: received, sequence: 0, portID: 0, handle: handle) < 0 {
            throw NeighbourTableError("receive", code: errno)
        }
    }

    /// Enlarges the receive buffer (a busy table sends bursts); best effort.
    func setReceiveBuffer(bytes: Int32) {
        var size = bytes
        _ = setsockopt(fileDescriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Large enough for any message the kernel sends on this socket (libmnl's MNL_SOCKET_BUFFER_SIZE is at most 8 KiB).
    private static let bufferSize = 32768

    /// `mnl_cb_run` with a Swift closure: the closure travels through the callback's context pointer, boxed.
    private static func run(
        _ buffer: UnsafeMutableRawPointer,
        count: Int,
        sequence: UInt32,
        portID: UInt32,
        handle: @escaping (UnsafePointer<nlmsghdr>) -> Void
    ) -> Int32 {
        let box = Unmanaged.passRetained(MessageHandler(handle))
        defer { box.release() }
        return mnl_cb_run(
            buffer,
            count,
            sequence,
            portID,
            { header, context in
                guard let header, let context else { return MNL_CB_OK }
                Unmanaged<MessageHandler>.fromOpaque(context).takeUnretainedValue().handle(header)
                return MNL_CB_OK
            },
            box.toOpaque()
        )
    }
}

/// A closure in a box, to pass through a C callback's context pointer.
private final class MessageHandler {
    let handle: (UnsafePointer<nlmsghdr>) -> Void
    init(_ handle: @escaping (UnsafePointer<nlmsghdr>) -> Void) { self.handle = handle }
}

/// Runs `body` with the calling thread in the network namespace at `path` (e.g. `/run/netns/x`), then switches back:
/// a socket created in `body` stays in that namespace, and interface indexes name that namespace's interfaces. With
/// `nil`, runs `body` as it is. Synchronous on purpose: the thread must not change while it is in the other namespace.
func withNetworkNamespace<Result>(
    _ path: String?,
    _ body: () throws -> Result
) throws -> Result {
    guard let path else { return try body() }
    let original = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC)
    guard original >= 0 else { throw NeighbourTableError("open own namespace", code: errno) }
    defer { close(original) }
    try enterNetworkNamespace(path)
    defer {
        precondition(peerscan_enter_network_namespace(original) == 0, "cannot return to the original network namespace")
    }
    return try body()
}

/// Moves the calling thread into the network namespace at `path` for good (a thread of its own).
func enterNetworkNamespace(_ path: String) throws {
    let target = open(path, O_RDONLY | O_CLOEXEC)
    guard target >= 0 else { throw NeighbourTableError("open namespace \(path)", code: errno) }
    defer { close(target) }
    guard peerscan_enter_network_namespace(target) == 0 else {
        throw NeighbourTableError("enter namespace \(path)", code: errno)
    }
}
