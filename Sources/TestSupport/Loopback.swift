import Glibc

// MARK: - Loopback sockets

/// A TCP socket on 127.0.0.1 with a port of the kernel's choice; listening or not. Close the descriptor after use.
public func loopbackSocket(listening: Bool) throws -> (descriptor: Int32, port: Int) {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard descriptor >= 0 else { throw POSIXFailure("socket") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
            bind(descriptor, address, length) == 0 && getsockname(descriptor, address, &length) == 0
        }
    }
    guard bound, !listening || listen(descriptor, 4) == 0 else {
        let failure = POSIXFailure(bound ? "listen" : "bind")
        close(descriptor)
        throw failure
    }
    return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
}

/// A port nothing listens on (bound, then closed): a connection to it is refused at once.
public func closedPort() throws -> Int {
    let (descriptor, port) = try loopbackSocket(listening: false)
    close(descriptor)
    return port
}
