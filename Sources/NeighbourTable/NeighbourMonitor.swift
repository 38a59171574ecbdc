internal import AsyncPrimitives
internal import CNetlink
import Glibc
import Logging
import MonitoringLog
internal import POSIXText
import Synchronization

/// The kernel's neighbour table (IPv4 ARP and IPv6 NDP entries) over rtnetlink, as `ip neigh show` and
/// `ip monitor neigh` read it: one dump, then every change.
///
/// ``run()`` joins the neighbour multicast group first, then dumps the table (so no change falls between the two) and
/// reports it as ``NeighbourEvent/table(_:)``, then reports each change until its task is cancelled. When the socket
/// overruns (`ENOBUFS`: the kernel dropped changes), or when ``requestTable()`` asks, it dumps again. The socket is
/// read, and the table dumped, on a ``ReaderThread`` of its own, never on the concurrency pool or a caller's thread.
public final class NeighbourMonitor: Sendable {
    /// The events, in order. Iterated by one consumer.
    public let events: AsyncStream<NeighbourEvent>
    private let continuation: AsyncStream<NeighbourEvent>.Continuation
    private let namespacePath: String?
    private let logger: Logger
    /// The running reader thread, and whether a table was asked for (``requestTable()``).
    private let tableRequest = Mutex<(reader: ReaderThread?, isPending: Bool)>((nil, false))

    /// Creates a monitor.
    ///
    /// - Parameters:
    ///   - namespacePath: The network namespace to read (a file such as `/run/netns/x`: for tests and tools); `nil`
    ///     for the process's own.
    ///   - logger: Where an overrun is reported.
    public init(namespacePath: String? = nil, logger: Logger) {
        self.namespacePath = namespacePath
        self.logger = logger
        (events, continuation) = AsyncStream.makeStream()
    }

    /// The whole table now.
    /// - Complexity: O(n) for n entries.
    public func dump() throws -> [NeighbourEntry] {
        try withNetworkNamespace(namespacePath) { () throws in
            try Self.dump(NetlinkSocket(groups: 0))
        }
    }

    /// Asks for the whole table again, reported as ``NeighbourEvent/table(_:)`` in order with the changes: dumped on
    /// the monitor's thread, not the caller's. Before ``run()`` dumps, the table it reports first answers it; a
    /// failed dump is logged (`neighbour table read failed`).
    public func requestTable() {
        tableRequest.withLock { request in
            request.isPending = true
            request.reader?.signal()
        }
    }

    /// Reports the table, then its changes, until the task is cancelled; throws if the kernel's table cannot be read
    /// (no netlink socket).
    public func run() async throws {
        tableRequest.withLock { $0.isPending = false }  // the first dump answers it
        let (monitor, requests, table) = try withNetworkNamespace(namespacePath) {
            () throws -> (NetlinkSocket, NetlinkSocket, [NeighbourEntry]) in
            let monitor = try NetlinkSocket(groups: UInt32(RTMGRP_NEIGH))
            monitor.setReceiveBuffer(bytes: 1 << 20)
            let requests = try NetlinkSocket(groups: 0)
            return (monitor, requests, try Self.dump(requests))
        }
        continuation.yield(.table(table))
        let reader = try ReaderThread { NeighbourTableError("eventfd", code: $0) }
        tableRequest.withLock { request in
            request.reader = reader
            if request.isPending { reader.signal() }
        }
        defer { tableRequest.withLock { $0.reader = nil } }
        let (logger, namespacePath, continuation) = (self.logger, self.namespacePath, self.continuation)
        try await reader.run(threadNamed: "peerscan-neighbours", handing: (monitor, requests)) { [self] sockets in
            // The thread names interfaces by index: in the namespace it reads.
            if let namespacePath { try enterNetworkNamespace(namespacePath) }
            let (monitor, requests) = sockets
            try reader.loop(
                orThrow: { NeighbourTableError("poll", code: $0) },
                prepare: { ReaderThread.Interest([Watched(monitor.fileDescriptor)]) },
                onWake: { answerTableRequest(requests) }
            ) { _ in
                do {
                    try monitor.receive { header in
                        guard let entry = NeighbourMonitor.entry(header) else { return }
                        switch Int32(header.pointee.nlmsg_type) {
                        case Int32(RTM_NEWNEIGH): continuation.yield(.updated(entry))
                        case Int32(RTM_DELNEIGH): continuation.yield(.removed(entry))
                        default: break
                        }
                    }
                } catch let error as NeighbourTableError where error.code == ENOBUFS {
                    logger.log(.neighbourTableOverrun, ["error": "\(error)"])
                    continuation.yield(.table(try NeighbourMonitor.dump(requests)))
                }
            }
        }
    }

    /// On the reader thread, after a wakeup: dumps the table if ``requestTable()`` asked for it; whether to go on.
    private func answerTableRequest(_ requests: NetlinkSocket) -> Bool {
        let isPending = tableRequest.withLock { request in
            defer { request.isPending = false }
            return request.isPending
        }
        guard isPending else { return true }
        do {
            continuation.yield(.table(try Self.dump(requests)))
        } catch {
            logger.log(.neighbourTableReadFailed, ["error": "\(error)"])
        }
        return true
    }

    static func dump(_ socket: NetlinkSocket) throws -> [NeighbourEntry] {
        final class Collected { var entries: [NeighbourEntry] = [] }
        let collected = Collected()
        try socket.request(
            "dump",
            build: { header in
                header.pointee.nlmsg_type = UInt16(RTM_GETNEIGH)
                header.pointee.nlmsg_flags = UInt16(NLM_F_REQUEST | NLM_F_DUMP)
                let message = mnl_nlmsg_put_extra_header(header, MemoryLayout<ndmsg>.size)!
                    .assumingMemoryBound(to: ndmsg.self)
                message.pointee.ndm_family = UInt8(AF_UNSPEC)
            },
            handle: { header in
                if let entry = entry(header) { collected.entries.append(entry) }
            }
        )
        return collected.entries
    }

    /// The entry an `RTM_NEWNEIGH`/`RTM_DELNEIGH` message describes, or `nil` for another message or family (a
    /// bridge's forwarding database shares these messages).
    static func entry(_ header: UnsafePointer<nlmsghdr>) -> NeighbourEntry? {
        let type = Int32(header.pointee.nlmsg_type)
        guard type == Int32(RTM_NEWNEIGH) || type == Int32(RTM_DELNEIGH) else { return nil }
        guard Int(header.pointee.nlmsg_len) >= MemoryLayout<nlmsghdr>.size + MemoryLayout<ndmsg>.size else {
            return nil
        }
        let message = mnl_nlmsg_get_payload(header)!.assumingMemoryBound(to: ndmsg.self).pointee
        let family: NeighbourFamily
        switch Int32(message.ndm_family) {
        case AF_INET: family = .ipv4
        case AF_INET6: family = .ipv6
        default: return nil
        }
        var attributes = Attributes()
        withUnsafeMutablePointer(to: &attributes) { pointer in
            _ = mnl_attr_parse(
                header,
                UInt32(MemoryLayout<ndmsg>.size),
                { attribute, context in
                    guard let attribute, let context else { return MNL_CB_OK }
                    let attributes = context.assumingMemoryBound(to: Attributes.self)
                    let payload = UnsafeRawBufferPointer(
                        start: mnl_attr_get_payload(attribute),
                        count: Int(mnl_attr_get_payload_len(attribute))
                    )
                    switch Int32(mnl_attr_get_type(attribute)) {
                    case Int32(NDA_DST): attributes.pointee.destination = Array(payload)
                    case Int32(NDA_LLADDR): attributes.pointee.linkLayer = Array(payload)
                    case Int32(NDA_CACHEINFO) where payload.count >= MemoryLayout<nda_cacheinfo>.size:
                        attributes.pointee.confirmedTicks = payload.loadUnaligned(as: nda_cacheinfo.self).ndm_confirmed
                    default: break
                    }
                    return MNL_CB_OK
                },
                pointer
            )
        }
        guard let destination = attributes.destination,
            let address = Self.text(of: destination, family: family, interfaceIndex: message.ndm_ifindex)
        else { return nil }
        let interfaceName = Self.interfaceName(message.ndm_ifindex)
        let scoped = destination.count == 16 && destination[0] == 0xFE && destination[1] & 0xC0 == 0x80
        return NeighbourEntry(
            family: family,
            address: scoped ? "\(address)%\(interfaceName)" : address,
            interfaceIndex: message.ndm_ifindex,
            interfaceName: interfaceName,
            macAddress: attributes.linkLayer.flatMap(Self.macAddress),
            state: Self.state(message.ndm_state),
            isRouter: Int32(message.ndm_flags) & Int32(NTF_ROUTER) != 0,
            confirmedAgo: attributes.confirmedTicks.map { .milliseconds(Int64($0) * 1000 / Self.ticksPerSecond) }
        )
    }

    private struct Attributes {
        var destination: [UInt8]?
        var linkLayer: [UInt8]?
        var confirmedTicks: UInt32?
    }

    /// The kernel's clock ticks per second (USER_HZ), the unit of `nda_cacheinfo`.
    private static let ticksPerSecond = Int64(max(sysconf(Int32(_SC_CLK_TCK)), 1))

    static func state(_ bits: UInt16) -> NeighbourState {
        switch Int32(bits) {
        case Int32(NUD_INCOMPLETE): .incomplete
        case Int32(NUD_REACHABLE): .reachable
        case Int32(NUD_STALE): .stale
        case Int32(NUD_DELAY): .delay
        case Int32(NUD_PROBE): .probe
        case Int32(NUD_FAILED): .failed
        case Int32(NUD_NOARP): .noARP
        case Int32(NUD_PERMANENT): .permanent
        default: .none
        }
    }

    /// `aa:bb:cc:dd:ee:ff`, for a 6-byte link-layer address.
    static func macAddress(_ bytes: [UInt8]) -> String? {
        guard bytes.count == 6 else { return nil }
        return bytes.map { byte in
            let hex = String(byte, radix: 16)
            return hex.count == 1 ? "0" + hex : hex
        }.joined(separator: ":")
    }

    private static func text(of bytes: [UInt8], family: NeighbourFamily, interfaceIndex: Int32) -> String? {
        let expected = family == .ipv4 ? 4 : 16
        guard bytes.count == expected else { return nil }
        return POSIXText.address(bytes)
    }

    private static func interfaceName(_ index: Int32) -> String {
        POSIXText.interfaceName(index: UInt32(bitPattern: index)) ?? ""
    }
}
