// SHA-1 through the system's libcrypto (OpenSSL 3, Debian's libssl3), the only importer of CCrypto.
//
// Why the system library and not swift-crypto: peerscan hashes with SHA-1 only for version 5 UUIDs (NameBasedUUID),
// the daemon already loads libcrypto through libmosquitto, and swift-crypto compiled BoringSSL in every cold build:
// without it a cold debug `swift build` took 939 steps and 200 s of CPU (user+sys) instead of 1,387 and 281 s, on the
// project's shared 2-core machine. EVP is OpenSSL 3's interface (the SHA1_Init family is deprecated); a later
// source's AES-128 (Bluetooth's `ah`) belongs here too, through EVP's cipher calls.

internal import CCrypto

/// SHA-1 (FIPS 180-4), for name-based identifiers (RFC 9562 version 5 UUIDs). Not for security: SHA-1 is broken for
/// collision resistance.
public enum SHA1 {
    /// The length of a digest in bytes.
    public static let byteCount = 20

    /// The SHA-1 digest of `bytes`, through OpenSSL's `EVP_Digest` with `EVP_sha1()`.
    ///
    /// - Parameter bytes: The message; may be empty.
    /// - Returns: The 20-byte digest.
    /// - Throws: ``LibcryptoError`` if libcrypto could not compute it: out of memory, or no loaded OpenSSL provider
    ///   offers SHA-1 (an `openssl.cnf` that replaces the default provider).
    /// - Complexity: O(n) in the length of `bytes`.
    public static func hash(_ bytes: UnsafeRawBufferPointer) throws(LibcryptoError) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: byteCount)
        var length: UInt32 = 0
        let status = digest.withUnsafeMutableBufferPointer { output in
            EVP_Digest(bytes.baseAddress, bytes.count, output.baseAddress, &length, EVP_sha1(), nil)
        }
        guard status == 1 else { throw LibcryptoError(drainingQueueAfter: "EVP_Digest(SHA-1)") }
        precondition(length == byteCount, "EVP_Digest wrote a SHA-1 digest of \(length) bytes")
        return digest
    }

    /// The SHA-1 digest of `bytes`, through OpenSSL's `EVP_Digest` with `EVP_sha1()`.
    ///
    /// - Parameter bytes: The message; may be empty.
    /// - Returns: The 20-byte digest.
    /// - Throws: ``LibcryptoError`` if libcrypto could not compute it (see ``hash(_:)-(UnsafeRawBufferPointer)``).
    /// - Complexity: O(n) in the length of `bytes`.
    public static func hash(_ bytes: [UInt8]) throws(LibcryptoError) -> [UInt8] {
        // `withUnsafeBytes` rethrows untyped errors: the typed one is carried out in a Result.
        try bytes.withUnsafeBytes { buffer in Result { () throws(LibcryptoError) in try hash(buffer) } }.get()
    }
}
