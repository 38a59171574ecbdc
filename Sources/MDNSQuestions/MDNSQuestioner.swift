import Discovery
import Glibc
internal import POSIXText

/// Asks one host whether it is there: the one-shot query of ``MDNSQuery`` for its host name, sent to the mDNS group of
/// each of its interfaces over each IP protocol it has addresses of, twice (a second apart, in case one is lost), and
/// the first answer within ``timeout``.
///
/// Multicast first: the host's neighbour entries just failed, and a datagram to it waits for the same resolution. A
/// unicast copy to each of its addresses follows, which wakes a host in Wi-Fi power save sooner (its access point
/// holds unicast frames for its next beacon, multicast ones for the next DTIM). Each question has sockets of its own
/// (an ephemeral port each), so what arrives on them is an answer to it; the ID is checked all the same. Reading never
/// blocks a thread: the sockets are polled between short sleeps.
struct MDNSQuestioner: Sendable {
    /// How long to wait for an answer after the first query.
    var timeout: Duration = .seconds(3)
    /// When the query is sent again, if no answer came.
    var resendAfter: Duration = .seconds(1)

    /// Asks; returns the address the answer came from, or `nil` if none came in time.
    ///
    /// - Throws: ``MDNSQuestionError`` if the name is not a DNS name, or nothing could be sent at all (no socket, no
    ///   interface, every send refused).
    func ask(_ question: HostQuestion) async throws(MDNSQuestionError) -> String? {
        let id = UInt16.random(in: 1...UInt16.max)
        let message = try MDNSQuery.message(id: id, hostName: question.hostName)
        let name = try MDNSQuery.encodedName(question.hostName)
        let families = Set(question.addresses.map { $0.contains(":") ? AF_INET6 : AF_INET })
        var sockets: [QuerySocket] = []
        defer { for socket in sockets { socket.close() } }
        var lastError: MDNSQuestionError?
        for family in families.sorted() {
            do { sockets.append(try QuerySocket(family: family)) } catch { lastError = error }
        }
        let interfaces = question.interfaces.compactMap { name in
            let index = if_nametoindex(name)
            return index == 0 ? nil : index
        }
        var sent = 0
        for socket in sockets {
            for interface in interfaces {
                do {
                    try socket.send(message, on: interface)
                    sent += 1
                } catch {
                    lastError = error
                }
            }
        }
        guard sent > 0 else {
            throw lastError ?? .system(operation: "find the interfaces \(question.interfaces)", code: ENODEV)
        }
        // A unicast copy to each address: a host in power save gets it at its next beacon (multicast waits for a
        // DTIM); the kernel queues it while it resolves the address, and drops it quietly if that fails.
        for socket in sockets {
            for address in question.addresses { socket.sendUnicast(message, to: address) }
        }
        let clock = ContinuousClock()
        let start = clock.now
        var resent = false
        while clock.now - start < timeout {
            for socket in sockets {
                if let address = socket.receiveAnswer(to: id, for: name) { return address }
            }
            if !resent && clock.now - start >= resendAfter {
                resent = true
                for socket in sockets { for interface in interfaces { try? socket.send(message, on: interface) } }
            }
            do { try await Task.sleep(for: .milliseconds(20)) } catch { return nil }  // cancelled: shutting down
        }
        return nil
    }
}

/// A UDP socket on an ephemeral port that sends to the mDNS group of one IP protocol.
private struct QuerySocket {
    let descriptor: Int32
    let family: Int32

    init(family: Int32) throws(MDNSQuestionError) {
        self.family = family
        descriptor = socket(
            family,
            Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue),
            0
        )
        guard descriptor >= 0 else { throw .system(operation: "UDP socket", code: errno) }
        // The hop limit mDNS uses (RFC 6762 §11), and no copy of our own query to ourselves.
        var hops: Int32 = 255
        var loop: Int32 = 0
        if family == AF_INET {
            var ttl = UInt8(255)
            var noLoop = UInt8(0)
            setsockopt(descriptor, Int32(IPPROTO_IP), IP_MULTICAST_TTL, &ttl, 1)
            setsockopt(descriptor, Int32(IPPROTO_IP), IP_MULTICAST_LOOP, &noLoop, 1)
        } else {
            setsockopt(descriptor, Int32(IPPROTO_IPV6), IPV6_MULTICAST_HOPS, &hops, 4)
            setsockopt(descriptor, Int32(IPPROTO_IPV6), IPV6_MULTICAST_LOOP, &loop, 4)
        }
    }

    func close() { _ = Glibc.close(descriptor) }

    /// Sends `message` to the group on the interface with this index.
    func send(_ message: [UInt8], on interface: UInt32) throws(MDNSQuestionError) {
        let result: Int
        if family == AF_INET {
            var request = ip_mreqn()
            request.imr_ifindex = Int32(interface)
            guard
                setsockopt(
                    descriptor,
                    Int32(IPPROTO_IP),
                    IP_MULTICAST_IF,
                    &request,
                    socklen_t(MemoryLayout<ip_mreqn>.size)
                ) == 0
            else { throw .system(operation: "IP_MULTICAST_IF \(interface)", code: errno) }
            var destination = sockaddr_in()
            destination.sin_family = sa_family_t(AF_INET)
            destination.sin_port = MDNSQuery.port.bigEndian
            inet_pton(AF_INET, MDNSQuery.ipv4Group, &destination.sin_addr)
            result = send(message, to: &destination)
        } else {
            var index = interface
            guard setsockopt(descriptor, Int32(IPPROTO_IPV6), IPV6_MULTICAST_IF, &index, 4) == 0
            else { throw .system(operation: "IPV6_MULTICAST_IF \(interface)", code: errno) }
            var destination = sockaddr_in6()
            destination.sin6_family = sa_family_t(AF_INET6)
            destination.sin6_port = MDNSQuery.port.bigEndian
            destination.sin6_scope_id = interface
            inet_pton(AF_INET6, MDNSQuery.ipv6Group, &destination.sin6_addr)
            result = send(message, to: &destination)
        }
        guard result >= 0 else { throw .system(operation: "send the query on interface \(interface)", code: errno) }
    }

    /// Sends `message` to port 5353 of `address` (text; a link-local IPv6 address with its `%interface`) if it is of
    /// this socket's family.
    func sendUnicast(_ message: [UInt8], to address: String) {
        let parts = address.split(separator: "%", maxSplits: 1).map(String.init)
        if family == AF_INET {
            var destination = sockaddr_in()
            destination.sin_family = sa_family_t(AF_INET)
            destination.sin_port = MDNSQuery.port.bigEndian
            guard inet_pton(AF_INET, parts[0], &destination.sin_addr) == 1 else { return }
            _ = send(message, to: &destination)
        } else {
            var destination = sockaddr_in6()
            destination.sin6_family = sa_family_t(AF_INET6)
            destination.sin6_port = MDNSQuery.port.bigEndian
            destination.sin6_scope_id = parts.count > 1 ? if_nametoindex(parts[1]) : 0
            guard inet_pton(AF_INET6, parts[0], &destination.sin6_addr) == 1 else { return }
            _ = send(message, to: &destination)
        }
    }

    /// Sends `message` to a socket address (`sockaddr_in` or `sockaddr_in6`) without blocking.
    private func send<Address>(_ message: [UInt8], to destination: inout Address) -> Int {
        withUnsafePointer(to: &destination) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(
                    descriptor,
                    message,
                    message.count,
                    Int32(MSG_DONTWAIT),
                    $0,
                    socklen_t(MemoryLayout<Address>.size)
                )
            }
        }
    }

    /// The source address of the first queued datagram that answers the query with this ID for `name` (encoded),
    /// reading (and dropping) what else is queued; `nil` if none is.
    func receiveAnswer(to id: UInt16, for name: [UInt8]) -> String? {
        var buffer = [UInt8](repeating: 0, count: 9000)
        var source = sockaddr_storage()
        while true {
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let count = withUnsafeMutablePointer(to: &source) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    recvfrom(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT), $0, &length)
                }
            }
            guard count > 0 else { return nil }
            if MDNSQuery.isAnswer(Array(buffer[..<count]), to: id, for: name) { return Self.text(of: source) }
        }
    }

    /// The text of a datagram's source address; a scoped IPv6 address gets `%interface`.
    private static func text(of source: sockaddr_storage) -> String {
        if Int32(source.ss_family) == AF_INET {
            let address = withUnsafeBytes(of: source) { $0.load(as: sockaddr_in.self) }.sin_addr
            return withUnsafeBytes(of: address) { POSIXText.address($0) } ?? ""
        }
        let ipv6 = withUnsafeBytes(of: source) { $0.load(as: sockaddr_in6.self) }
        let scope = POSIXText.interfaceName(index: ipv6.sin6_scope_id)
        return withUnsafeBytes(of: ipv6.sin6_addr) { POSIXText.address($0, scope: scope) } ?? ""
    }
}
