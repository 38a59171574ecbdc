internal import CNl80211
import Glibc

/// A libnl socket: generic netlink (nl80211) for requests and multicast events, or rtnetlink for link events. Freed
/// when released. Used by one thread at a time.
final class GenericNetlinkSocket {
    let socket: OpaquePointer
    /// nl80211's generic netlink family id (0 on an rtnetlink socket).
    private(set) var family: Int32 = 0

    /// Opens a generic netlink socket and resolves nl80211's family (``Nl80211Error/Code/familyMissing`` without
    /// cfg80211).
    static func nl80211() throws -> GenericNetlinkSocket {
        let opened = try GenericNetlinkSocket(protocol: NETLINK_GENERIC)
        let family = genl_ctrl_resolve(opened.socket, "nl80211")
        guard family >= 0 else {
            throw family == -NLE_OBJ_NOTFOUND
                ? Nl80211Error("resolve family", code: .familyMissing, detail: "no nl80211 in this kernel")
                : Self.libnlError("resolve family", family)
        }
        opened.family = family
        return opened
    }

    /// Opens a socket of a netlink `protocol` (`NETLINK_GENERIC`, `NETLINK_ROUTE`).
    init(protocol netlinkProtocol: Int32) throws {
        guard let allocated = nl_socket_alloc() else {
            throw Nl80211Error("allocate socket", code: .system, detail: "out of memory")
        }
        let connected = nl_connect(allocated, netlinkProtocol)
        guard connected >= 0 else {
            nl_socket_free(allocated)
            throw Self.libnlError("connect", connected)
        }
        socket = allocated
    }

    deinit { nl_socket_free(socket) }

    /// The file descriptor, to poll.
    var fileDescriptor: Int32 { nl_socket_get_fd(socket) }

    /// Joins nl80211's multicast group `name` (`scan`, `mlme`, `config`).
    func join(group name: String) throws {
        let group = genl_ctrl_resolve_grp(socket, "nl80211", name)
        guard group >= 0 else { throw Self.libnlError("resolve group \(name)", group) }
        let joined = nl_socket_add_membership(socket, group)
        guard joined >= 0 else { throw Self.libnlError("join group \(name)", joined) }
    }

    /// Joins a multicast group by number (an rtnetlink `RTNLGRP_*`).
    func join(groupNumber: Int32) throws {
        let joined = nl_socket_add_membership(socket, groupNumber)
        guard joined >= 0 else { throw Self.libnlError("join group \(groupNumber)", joined) }
    }

    /// Sends an nl80211 command with the attributes `build` adds, and hands every message of the answer to
    /// `handle` until the kernel says it is done (the end of a dump, or an acknowledgement). An error the kernel
    /// answers with is thrown with its `errno`; a dump the kernel marks inconsistent (it changed while sent) throws
    /// ``Nl80211Error/Code/interrupted`` after `handle` saw it all.
    func request(
        _ operation: String,
        interface: String?,
        command: UInt8,
        dump: Bool,
        build: (OpaquePointer) -> Int32 = { _ in 0 },
        handle: @escaping (OpaquePointer) -> Void = { _ in }
    ) throws {
        guard let message = nlmsg_alloc() else {
            throw Nl80211Error(operation, interface: interface, code: .system, detail: "out of memory")
        }
        defer { nlmsg_free(message) }
        let flags = dump ? NLM_F_DUMP : 0
        guard genlmsg_put(message, UInt32(NL_AUTO_PORT), UInt32(NL_AUTO_SEQ), family, 0, flags, command, 0) != nil,
            build(message) >= 0
        else { throw Nl80211Error(operation, interface: interface, code: .system, detail: "message too large") }
        let sent = nl_send_auto(socket, message)
        guard sent >= 0 else { throw Self.libnlError(operation, sent, interface: interface) }

        let state = RequestState(handle)
        guard let callbacks = nl_cb_alloc(NL_CB_DEFAULT) else {
            throw Nl80211Error(operation, interface: interface, code: .system, detail: "out of memory")
        }
        defer { nl_cb_put(callbacks) }
        let context = Unmanaged.passUnretained(state).toOpaque()
        nl_cb_set(
            callbacks,
            NL_CB_VALID,
            NL_CB_CUSTOM,
            { message, context in
                guard let message, let context else { return Int32(NL_OK.rawValue) }
                Unmanaged<RequestState>.fromOpaque(context).takeUnretainedValue().handle(message)
                return Int32(NL_OK.rawValue)
            },
            context
        )
        // The end of a dump and an acknowledgement both end the answer.
        let done: nl_recvmsg_msg_cb_t = { _, context in
            Unmanaged<RequestState>.fromOpaque(context!).takeUnretainedValue().status = 0
            return Int32(NL_STOP.rawValue)
        }
        for kind in [NL_CB_FINISH, NL_CB_ACK] { nl_cb_set(callbacks, kind, NL_CB_CUSTOM, done, context) }
        nl_cb_err(
            callbacks,
            NL_CB_CUSTOM,
            { _, error, context in
                Unmanaged<RequestState>.fromOpaque(context!).takeUnretainedValue().status = error?.pointee.error ?? -EIO
                return Int32(NL_STOP.rawValue)
            },
            context
        )
        var interrupted = false
        withExtendedLifetime(state) {
            while state.status > 0 {
                let received = nl_recvmsgs(socket, callbacks)
                // The dump changed under the kernel while it was sent (NLM_F_DUMP_INTR): libnl delivers it all,
                // then says so.
                if received == -NLE_DUMP_INTR { interrupted = true }
                if received < 0 && state.status > 0 { state.status = received == -NLE_PERM ? -EPERM : -EIO }
            }
        }
        if state.status < 0 { throw Nl80211Error(operation, interface: interface, errno: -state.status) }
        if interrupted {
            throw Nl80211Error(operation, interface: interface, code: .interrupted, detail: "dump interrupted")
        }
    }

    /// libnl's negative `NLE_*` code as an error.
    static func libnlError(_ operation: String, _ code: Int32, interface: String? = nil) -> Nl80211Error {
        let kind: Nl80211Error.Code =
            switch -code {
            case NLE_PERM: .permissionDenied
            case NLE_NOMEM: .overrun
            case NLE_OBJ_NOTFOUND: .familyMissing
            default: .system
            }
        return Nl80211Error(operation, interface: interface, code: kind, detail: String(cString: nl_geterror(code)))
    }
}

/// What a request's callbacks share: the handler, and 1 while the answer is pending, 0 when done, `-errno` on error.
private final class RequestState {
    let handle: (OpaquePointer) -> Void
    var status: Int32 = 1
    init(_ handle: @escaping (OpaquePointer) -> Void) { self.handle = handle }
}
