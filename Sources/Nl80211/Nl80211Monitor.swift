internal import AsyncPrimitives
internal import CNl80211
import Glibc

/// nl80211's events (the `scan`, `mlme` and `config` multicast groups) and rtnetlink's link changes, as
/// ``Nl80211Event``s: what tells a Wi-Fi source when to dump again.
///
/// ``run()`` joins the groups, reports ``Nl80211Event/subscribed`` (dump after it: no change falls between), then
/// reports each event until its task is cancelled. The sockets are read on a thread of its own (`poll(2)`), never
/// on the concurrency pool. Joining needs no privilege.
public final class Nl80211Monitor: Sendable {
    /// The events, in order. Iterated by one consumer.
    public let events: AsyncStream<Nl80211Event>
    private let continuation: AsyncStream<Nl80211Event>.Continuation

    /// Creates a monitor.
    public init() {
        (events, continuation) = AsyncStream.makeStream()
    }

    /// Reports events until the task is cancelled; throws ``Nl80211Error/Code/familyMissing`` on a kernel without
    /// a Wi-Fi stack, or another ``Nl80211Error`` if a socket fails.
    public func run() async throws {
        let wireless = try GenericNetlinkSocket.nl80211()
        for group in ["scan", "mlme", "config"] { try wireless.join(group: group) }
        let links = try GenericNetlinkSocket(protocol: NETLINK_ROUTE)
        try links.join(groupNumber: Int32(RTNLGRP_LINK.rawValue))
        for socket in [wireless, links] {
            nl_socket_disable_seq_check(socket.socket)
            _ = nl_socket_set_nonblocking(socket.socket)
            _ = nl_socket_set_buffer_size(socket.socket, 1 << 20, 0)
        }
        let reader = try ReaderThread { Nl80211Error("eventfd", errno: $0) }
        continuation.yield(.subscribed)
        try await reader.run(threadNamed: "peerscan-nl80211", handing: (wireless, links)) { [self] sockets in
            try read(sockets.0, sockets.1, on: reader)
        }
    }

    /// The reader thread's loop: hands each socket's messages to libnl, whose callbacks yield the events.
    private func read(_ wireless: GenericNetlinkSocket, _ links: GenericNetlinkSocket, on reader: ReaderThread) throws {
        let context = Unmanaged.passUnretained(self).toOpaque()
        nl_socket_modify_cb(
            wireless.socket,
            NL_CB_VALID,
            NL_CB_CUSTOM,
            { message, context in
                guard let message, let context else { return Int32(NL_OK.rawValue) }
                let monitor = Unmanaged<Nl80211Monitor>.fromOpaque(context).takeUnretainedValue()
                if let event = Nl80211Monitor.event(message) { monitor.continuation.yield(event) }
                return Int32(NL_OK.rawValue)
            },
            context
        )
        nl_socket_modify_cb(
            links.socket,
            NL_CB_VALID,
            NL_CB_CUSTOM,
            { message, context in
                guard let message, let context else { return Int32(NL_OK.rawValue) }
                let monitor = Unmanaged<Nl80211Monitor>.fromOpaque(context).takeUnretainedValue()
                if let event = Nl80211Monitor.linkEvent(message) { monitor.continuation.yield(event) }
                return Int32(NL_OK.rawValue)
            },
            context
        )
        let sockets = [wireless, links]
        let watched = sockets.map { Watched($0.fileDescriptor) }
        try withExtendedLifetime(self) {
            try reader.loop(
                orThrow: { Nl80211Error("poll", errno: $0) },
                prepare: { ReaderThread.Interest(watched) }
            ) { ready in
                for (socket, events) in zip(sockets, ready) where !events.isEmpty {
                    let received = nl_recvmsgs_default(socket.socket)
                    if received == -NLE_NOMEM || received == -NLE_MSG_OVERFLOW {
                        continuation.yield(.overrun)
                    } else if received < 0 && received != -NLE_AGAIN {
                        throw GenericNetlinkSocket.libnlError("receive events", received)
                    }
                }
            }
        }
    }

    /// The event an nl80211 multicast message announces, or `nil` for one a Wi-Fi source need not follow.
    static func event(_ message: OpaquePointer) -> Nl80211Event? {
        let command = UInt32(Nl80211Client.command(message))
        let table = Nl80211Client.attributes(message, maximum: NL80211_ATTR_MAX.rawValue)
        let index = Nl80211Client.u32(table, NL80211_ATTR_IFINDEX.rawValue).map { Int32(bitPattern: $0) }
        switch command {
        case NL80211_CMD_NEW_SCAN_RESULTS.rawValue: return index.map { .scanFinished(interfaceIndex: $0) }
        case NL80211_CMD_SCAN_ABORTED.rawValue: return index.map { .scanAborted(interfaceIndex: $0) }
        case NL80211_CMD_CONNECT.rawValue, NL80211_CMD_DISCONNECT.rawValue:
            return index.map { .connectionChanged(interfaceIndex: $0) }
        case NL80211_CMD_NEW_INTERFACE.rawValue, NL80211_CMD_DEL_INTERFACE.rawValue,
            NL80211_CMD_SET_INTERFACE.rawValue:
            return .interfacesChanged
        default: return nil
        }
    }

    /// A link change (`RTM_NEWLINK`, `RTM_DELLINK`) on the rtnetlink socket.
    static func linkEvent(_ message: OpaquePointer) -> Nl80211Event? {
        let header = nlmsg_hdr(message)!
        let type = Int32(header.pointee.nlmsg_type)
        guard type == Int32(RTM_NEWLINK) || type == Int32(RTM_DELLINK),
            Int(header.pointee.nlmsg_len) >= MemoryLayout<nlmsghdr>.size + MemoryLayout<ifinfomsg>.size
        else { return nil }
        let info = nlmsg_data(header)!.assumingMemoryBound(to: ifinfomsg.self).pointee
        return .linkChanged(interfaceIndex: info.ifi_index)
    }
}
