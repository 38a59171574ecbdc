import Glibc

/// The text of what the C library hands back in buffers: a fixed-size C string (an interface name, `inet_ntop`'s
/// output, a library's message), an `errno`'s description, an IP address's text form, an interface's name, a small
/// file of `/proc`.
///
/// Every module that calls such a function converts through here, so that a buffer without a NUL, invalid UTF-8, an
/// address of the wrong length or an unknown `errno` is handled once, the same way everywhere: never a trap, never a
/// read past the buffer.
public enum POSIXText {
    /// The text of a fixed-size C buffer: its bytes up to the first NUL, or all of them if it holds none; invalid
    /// UTF-8 becomes U+FFFD.
    ///
    /// - Parameter buffer: The buffer, e.g. `[CChar]` that `if_indextoname` or `inet_ntop` filled, or a C array
    ///   field's bytes.
    /// - Returns: The text before the first NUL.
    /// - Complexity: O(n) in the buffer's length.
    public static func string(fromBuffer buffer: some Sequence<CChar>) -> String {
        String(decoding: buffer.lazy.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The description of an `errno` value, as `strerror(3)` gives it (`No such file or directory`), through the
    /// thread-safe `strerror_r`; `Unknown error N` for a value the C library does not know.
    ///
    /// - Parameter code: An `errno` value.
    /// - Returns: Its description.
    public static func errorDescription(_ code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard strerror_r(code, &buffer, buffer.count) == 0 else { return "Unknown error \(code)" }
        return string(fromBuffer: buffer)
    }

    /// The text form of an IPv4 address's 4 bytes or an IPv6 address's 16 (`inet_ntop(3)`: `192.0.2.1`,
    /// `fe80::1`), with `%scope` appended when a scope is given (an interface name, for a link-local address).
    ///
    /// - Parameters:
    ///   - bytes: The address in network byte order: 4 bytes (IPv4) or 16 (IPv6).
    ///   - scope: The zone appended after a `%`; `nil` or empty: none.
    /// - Returns: The address's text; `nil` if `bytes` is neither 4 nor 16 bytes long.
    public static func address(_ bytes: UnsafeRawBufferPointer, scope: String? = nil) -> String? {
        let family: Int32
        switch bytes.count {
        case 4: family = AF_INET
        case 16: family = AF_INET6
        default: return nil
        }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(family, bytes.baseAddress, &text, socklen_t(text.count)) != nil else { return nil }
        let address = string(fromBuffer: text)
        guard let scope, !scope.isEmpty else { return address }
        return address + "%" + scope
    }

    /// The text form of an address's bytes (``address(_:scope:)`` over any collection of bytes).
    ///
    /// - Returns: The address's text; `nil` if `bytes` is neither 4 nor 16 bytes long.
    public static func address(_ bytes: some Collection<UInt8>, scope: String? = nil) -> String? {
        Array(bytes).withUnsafeBytes { address($0, scope: scope) }
    }

    /// The text of a small file read whole with `read(2)` (a file of `/proc`, which has no size to ask for); `nil` if
    /// it cannot be opened. A read interrupted by a signal is retried; invalid UTF-8 becomes U+FFFD.
    ///
    /// - Parameter path: The file's path, e.g. `/proc/self/status`.
    /// - Returns: The file's text, up to where a read failed or the file ended.
    public static func fileText(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The name of the interface with this index (`if_indextoname(3)`); `nil` if there is none.
    ///
    /// - Parameter index: An interface index, e.g. a link-local address's scope or a neighbour entry's interface.
    /// - Returns: The interface's name, e.g. `eth0`.
    public static func interfaceName(index: UInt32) -> String? {
        var name = [CChar](repeating: 0, count: Int(IF_NAMESIZE) + 1)
        guard index != 0, if_indextoname(index, &name) != nil else { return nil }
        return string(fromBuffer: name)
    }
}
