import Foundation

/// Name-based UUIDs, version 5 (SHA-1), as RFC 9562 section 5.5 defines them: the same namespace and name give the
/// same UUID everywhere (device ids, an alert digest's key).
public enum NameBasedUUID {
    /// The version 5 UUID of `name` in `namespace`: the first 16 bytes of SHA-1(namespace's bytes + name), with the
    /// version and variant bits set.
    ///
    /// - Throws: ``LibcryptoError`` if libcrypto could not hash (out of memory, or an OpenSSL configuration that loads
    ///   no provider of SHA-1).
    /// - Complexity: O(n) in the length of `name`.
    public static func make(namespace: UUID, name: some Sequence<UInt8>) throws(LibcryptoError) -> UUID {
        var message = withUnsafeBytes(of: namespace.uuid) { Array($0) }
        message.append(contentsOf: name)
        var bytes = Array(try SHA1.hash(message).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x50  // version 5
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 9562 variant
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            )
        )
    }
}
