import Glibc
import NetworkInterfaces
internal import POSIXText

/// How IPv6 hosts are solicited: an ICMPv6 echo request to the all-nodes group of each interface.
enum IPv6Solicitation: String, Sendable, CustomStringConvertible {
    /// An unprivileged ping socket: the process's group is in `net.ipv4.ping_group_range`.
    case pingSocket = "ping-socket"
    /// A raw ICMPv6 socket: CAP_NET_RAW.
    case rawSocket = "raw-socket"
    /// Neither is allowed: IPv6 hosts are found only when they talk to this host.
    case unavailable

    var description: String { rawValue }
}

/// What a sweep, or the datagrams to known addresses, sent.
struct ProbeTraffic: Sendable, Equatable {
    /// Datagrams handed to the kernel.
    var datagramsSent = 0
    /// Datagrams the kernel refused for themselves (a full send buffer's `EAGAIN`, a firewall's `EPERM`…; see
    /// ``ProbeSendFailure``), `ENOBUFS` apart.
    var failures = 0
    /// Datagrams the kernel had no room for (`ENOBUFS`: no neighbour entry could be made, the table being at
    /// `gc_thresh3`, or the device's queue was full), by the protocol of their address.
    var noRoom: [IPProtocol: Int] = [:]
    /// All-nodes echo requests sent (one per interface with IPv6, and one more per global IPv6 address of it).
    var echoRequestsSent = 0
}

/// Active probing: datagrams that make the kernel resolve addresses, so that the neighbour table holds every host
/// that answers ARP or NDP, whatever it does with the datagram itself.
///
/// - IPv4: one UDP datagram to port 9 (discard) per address; the kernel ARPs for it. Unprivileged.
/// - IPv6: one ICMPv6 echo request to `ff02::1` per interface; every host answers, and to answer it solicits this
///   host's MAC address, which creates its entry here. An unprivileged ping socket if the process's group is in
///   `net.ipv4.ping_group_range` (systemd allows every group), else a raw socket (CAP_NET_RAW), else none
///   (``solicitation``).
///
/// Sends are paced by a ``ProbePacer`` the caller owns (the ceiling holds across calls) and never block: the kernel
/// queues each datagram until its address resolves.
final class ActiveProber: Sendable {
    /// How IPv6 hosts are solicited.
    let solicitation: IPv6Solicitation
    private let udp4: Int32
    private let udp6: Int32
    private let icmp6: Int32
    private let namespacePath: String?

    /// Opens the sockets, in the network namespace at `namespacePath` if given (for tests and tools; the addresses
    /// of the interfaces are then read there too).
    ///
    /// - Throws: ``ProbeError`` if no UDP socket can be opened.
    init(namespacePath: String? = nil) throws(ProbeError) {
        self.namespacePath = namespacePath
        let (udp4, udp6, icmp6, solicitation) = try Self.inNamespace(namespacePath) {
            () throws(ProbeError) -> (Int32, Int32, Int32, IPv6Solicitation) in
            let udp4 = socket(
                AF_INET,
                Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue),
                0
            )
            guard udp4 >= 0 else { throw ProbeError(operation: "UDP socket", code: errno) }
            let udp6 = socket(
                AF_INET6,
                Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue),
                0
            )
            // ENOBUFS is reported only with IP_RECVERR (ProbeSendFailure); without it, a table full goes unseen.
            Self.enableErrorReports(udp4, level: Int32(IPPROTO_IP), option: IP_RECVERR)
            Self.enableErrorReports(udp6, level: Int32(IPPROTO_IPV6), option: IPV6_RECVERR)
            let flags = Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue)
            var icmp6 = socket(AF_INET6, Int32(SOCK_DGRAM.rawValue) | flags, Int32(IPPROTO_ICMPV6))
            var solicitation = IPv6Solicitation.pingSocket
            if icmp6 < 0 {
                icmp6 = socket(AF_INET6, Int32(SOCK_RAW.rawValue) | flags, Int32(IPPROTO_ICMPV6))
                solicitation = icmp6 < 0 ? .unavailable : .rawSocket
            }
            return (udp4, udp6, icmp6, solicitation)
        }
        self.udp4 = udp4
        self.udp6 = udp6
        self.icmp6 = icmp6
        self.solicitation = solicitation
    }

    deinit {
        for descriptor in [udp4, udp6, icmp6] where descriptor >= 0 { close(descriptor) }
    }

    /// The directly connected IPv4 subnets of these interfaces.
    func subnets(of interfaces: [String]) -> [IPv4InterfaceAddress] {
        let names = Set(interfaces)
        return (try? Self.inNamespace(namespacePath) { NetworkInterfaces.ipv4Addresses(on: names) }) ?? []
    }

    /// One sweep: a datagram to every address of the directly connected IPv4 subnets of `interfaces` (at most
    /// ``IPv4InterfaceAddress/defaultSweepLimit`` each), and an all-nodes echo request on each of them.
    /// - Complexity: O(a) for a addresses swept, taking about a / the pacer's rate seconds.
    func sweep(interfaces: [String], pacer: inout ProbePacer) async -> ProbeTraffic {
        var traffic = ProbeTraffic()
        for interface in interfaces {
            guard await solicitIPv6Hosts(on: interface, pacer: &pacer, into: &traffic) else { return traffic }
        }
        var seen: Set<UInt32> = []
        let targets = subnets(of: interfaces).flatMap { $0.sweepAddresses() }.filter { seen.insert($0).inserted }
        await send(to: targets.map { .ipv4($0) }, pacer: &pacer, into: &traffic)
        drainEchoReplies()
        drainErrorQueues()
        return traffic
    }

    /// A datagram to each address (IPv4, or IPv6 with a `%interface` scope for link-local ones): the kernel
    /// re-verifies an entry that is stale.
    func probe(addresses: [String], pacer: inout ProbePacer) async -> ProbeTraffic {
        var traffic = ProbeTraffic()
        await send(to: addresses.compactMap(Target.init), pacer: &pacer, into: &traffic)
        drainErrorQueues()
        return traffic
    }

    private enum Target {
        case ipv4(UInt32)
        case ipv6(in6_addr, scope: UInt32)

        init?(_ text: String) {
            let parts = text.split(separator: "%", maxSplits: 1).map(String.init)
            var v4 = in_addr()
            if inet_pton(AF_INET, parts[0], &v4) == 1 {
                self = .ipv4(UInt32(bigEndian: v4.s_addr))
                return
            }
            var v6 = in6_addr()
            guard inet_pton(AF_INET6, parts[0], &v6) == 1 else { return nil }
            self = .ipv6(v6, scope: parts.count > 1 ? if_nametoindex(parts[1]) : 0)
        }

        var ipProtocol: IPProtocol {
            switch self {
            case .ipv4: .ipv4
            case .ipv6: .ipv6
            }
        }
    }

    private func send(to targets: [Target], pacer: inout ProbePacer, into traffic: inout ProbeTraffic) async {
        for target in targets {
            if case .ipv6 = target, udp6 < 0 { continue }  // no IPv6 socket: nothing to send it on
            guard await pacer.next() else { return }  // cancelled: shutting down
            for attempt in 0...ProbeSendFailure.retries {
                if sendDatagram(to: target) {
                    traffic.datagramsSent += 1
                    break
                }
                switch ProbeSendFailure(errno: errno, attempt: attempt) {
                case .earlierDatagram: continue  // this one was not sent: again
                case .noRoom: traffic.noRoom[target.ipProtocol, default: 0] += 1
                case .refused: traffic.failures += 1
                }
                break
            }
        }
    }

    /// One datagram of one byte to port 9 (discard) of `target` (an IPv6 one only if the IPv6 socket is open).
    /// - Returns: Whether the kernel took it (else `errno` says why).
    private func sendDatagram(to target: Target) -> Bool {
        var payload: UInt8 = 0
        switch target {
        case .ipv4(let address):
            var destination = sockaddr_in()
            destination.sin_family = sa_family_t(AF_INET)
            destination.sin_port = in_port_t(9).bigEndian
            destination.sin_addr.s_addr = address.bigEndian
            return withUnsafePointer(to: &destination) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(udp4, &payload, 1, Int32(MSG_DONTWAIT), $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            } >= 0
        case .ipv6(let address, let scope):
            var destination = sockaddr_in6()
            destination.sin6_family = sa_family_t(AF_INET6)
            destination.sin6_port = in_port_t(9).bigEndian
            destination.sin6_addr = address
            destination.sin6_scope_id = scope
            return withUnsafePointer(to: &destination) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(udp6, &payload, 1, Int32(MSG_DONTWAIT), $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            } >= 0
        }
    }

    /// Turns on `IP_RECVERR` (or `IPV6_RECVERR`) on a socket, if it is open. Should the kernel refuse (it does not,
    /// for a UDP socket), `ENOBUFS` goes unreported, as before the option was used, and nothing else changes.
    private static func enableErrorReports(_ socket: Int32, level: Int32, option: Int32) {
        guard socket >= 0 else { return }
        var on: Int32 = 1
        _ = setsockopt(socket, level, option, &on, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Reads and drops the errors queued on the UDP sockets (with `IP_RECVERR` the kernel queues one per ICMP error
    /// and failed resolution, up to the receive buffer; what counts was counted at the sends). Emptying the queue
    /// also clears the pending error, so the next round's first datagram is not taken for an earlier one's.
    private func drainErrorQueues() {
        var buffer = [UInt8](repeating: 0, count: 512)
        var control = [UInt8](repeating: 0, count: 512)
        for descriptor in [udp4, udp6] where descriptor >= 0 {
            while true {
                let received = buffer.withUnsafeMutableBytes { data in
                    control.withUnsafeMutableBytes { ancillary in
                        var vector = iovec(iov_base: data.baseAddress, iov_len: data.count)
                        return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                            var message = msghdr()
                            message.msg_iov = vectorPointer
                            message.msg_iovlen = 1
                            message.msg_control = ancillary.baseAddress
                            message.msg_controllen = ancillary.count
                            return recvmsg(descriptor, &message, Int32(MSG_ERRQUEUE) | Int32(MSG_DONTWAIT))
                        }
                    }
                }
                if received < 0 { break }
            }
        }
    }

    /// An ICMPv6 echo request to ff02::1 on `interface`, from its link-local address (hosts answer from theirs), and
    /// one from each of its global addresses (hosts answer from their global addresses, which so become known too).
    /// - Returns: False if cancelled (shutting down).
    private func solicitIPv6Hosts(
        on interface: String,
        pacer: inout ProbePacer,
        into traffic: inout ProbeTraffic
    ) async -> Bool {
        guard icmp6 >= 0, let index = Self.interfaceIndex(interface, namespacePath: namespacePath) else { return true }
        var destination = sockaddr_in6()
        destination.sin6_family = sa_family_t(AF_INET6)
        inet_pton(AF_INET6, "ff02::1", &destination.sin6_addr)
        destination.sin6_scope_id = index
        guard await pacer.next() else { return false }
        Self.sendEchoRequest(from: icmp6, to: &destination, into: &traffic)
        let sources =
            (try? Self.inNamespace(namespacePath) { NetworkInterfaces.globalIPv6Addresses(on: interface) }) ?? []
        for source in sources {
            var local = sockaddr_in6()
            local.sin6_family = sa_family_t(AF_INET6)
            guard inet_pton(AF_INET6, source, &local.sin6_addr) == 1 else { continue }
            let flags = Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue)
            let kind = solicitation == .pingSocket ? Int32(SOCK_DGRAM.rawValue) : Int32(SOCK_RAW.rawValue)
            let opened = try? Self.inNamespace(namespacePath) { socket(AF_INET6, kind | flags, Int32(IPPROTO_ICMPV6)) }
            guard let bound = opened, bound >= 0 else { continue }
            defer { close(bound) }
            let isBound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(bound, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) == 0
                }
            }
            guard isBound else { continue }
            guard await pacer.next() else { return false }
            Self.sendEchoRequest(from: bound, to: &destination, into: &traffic)
        }
        return true
    }

    private static func sendEchoRequest(
        from socket: Int32,
        to destination: inout sockaddr_in6,
        into traffic: inout ProbeTraffic
    ) {
        // Type 128 (echo request), code 0, checksum (the kernel computes it), identifier, sequence.
        var request: [UInt8] = [128, 0, 0, 0, 0x70, 0x73, 0, 1]
        let sent = withUnsafePointer(to: &destination) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(
                    socket,
                    &request,
                    request.count,
                    Int32(MSG_DONTWAIT),
                    $0,
                    socklen_t(MemoryLayout<sockaddr_in6>.size)
                )
            }
        }
        if sent >= 0 { traffic.echoRequestsSent += 1 } else { traffic.failures += 1 }
    }

    /// Reads and drops the echo replies queued (they are not needed: the neighbour entries are what counts).
    private func drainEchoReplies() {
        guard icmp6 >= 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 2048)
        while recv(icmp6, &buffer, buffer.count, Int32(MSG_DONTWAIT)) > 0 {}
    }

    private static func interfaceIndex(_ name: String, namespacePath: String?) -> UInt32? {
        let index = (try? inNamespace(namespacePath) { if_nametoindex(name) }) ?? 0
        return index == 0 ? nil : index
    }

    /// Runs `body` with the calling thread in the network namespace at `path` (synchronously: the thread must not
    /// change meanwhile), then back; with `nil`, as it is.
    static func inNamespace<Result>(
        _ path: String?,
        _ body: () throws(ProbeError) -> Result
    ) throws(ProbeError) -> Result {
        guard let path else { return try body() }
        let original = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC)
        guard original >= 0 else { throw ProbeError(operation: "open own namespace", code: errno) }
        defer { close(original) }
        let target = open(path, O_RDONLY | O_CLOEXEC)
        guard target >= 0 else { throw ProbeError(operation: "open \(path)", code: errno) }
        defer { close(target) }
        guard enterNetworkNamespace(target, cloneNewNet) == 0 else {
            throw ProbeError(operation: "enter \(path)", code: errno)
        }
        defer { _ = enterNetworkNamespace(original, cloneNewNet) }
        return try body()
    }

    private static let cloneNewNet: Int32 = 0x4000_0000
}

/// setns(2), which Glibc's module declares only under _GNU_SOURCE.
@_silgen_name("setns")
private func enterNetworkNamespace(_ descriptor: Int32, _ type: Int32) -> Int32

/// Probing cannot start: a socket could not be opened (or, for tests and tools, a network namespace entered).
public struct ProbeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What was being done.
    public var operation: String
    /// The `errno` value.
    public var code: Int32

    public var description: String { "\(operation): \(POSIXText.errorDescription(code)) (errno \(code))" }
}
