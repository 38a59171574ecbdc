// AES-128 through the system's libcrypto (EVP's cipher calls), for Bluetooth's `ah` function: one block, ECB, no
// padding — the Core spec's security function `e` (Vol 3, Part H, 2.2.1).

internal import CCrypto

/// AES-128 (FIPS 197) of single blocks. Not a general cipher: ECB on one block is only what Bluetooth's security
/// functions are defined with.
public enum AES128 {
    /// The length of a key and of a block, in bytes.
    public static let blockSize = 16

    /// Encrypts one block with `key`: `EVP_EncryptInit_ex(EVP_aes_128_ecb())`, padding off.
    ///
    /// - Parameters:
    ///   - block: 16 bytes of plaintext, the most significant octet first (as the Core spec writes them).
    ///   - key: 16 bytes of key, most significant octet first.
    /// - Returns: The 16-byte ciphertext.
    /// - Throws: ``LibcryptoError`` if libcrypto could not encrypt (out of memory, no provider offers AES-128-ECB).
    /// - Precondition: `block` and `key` are 16 bytes each (a programmer's error otherwise).
    /// - Complexity: O(1).
    public static func encrypt(block: [UInt8], key: [UInt8]) throws(LibcryptoError) -> [UInt8] {
        precondition(block.count == blockSize && key.count == blockSize, "AES-128 takes a 16-byte block and key")
        guard let context = EVP_CIPHER_CTX_new() else {
            throw LibcryptoError(drainingQueueAfter: "EVP_CIPHER_CTX_new")
        }
        defer { EVP_CIPHER_CTX_free(context) }
        guard EVP_EncryptInit_ex(context, EVP_aes_128_ecb(), nil, key, nil) == 1 else {
            throw LibcryptoError(drainingQueueAfter: "EVP_EncryptInit_ex(AES-128-ECB)")
        }
        guard EVP_CIPHER_CTX_set_padding(context, 0) == 1 else {
            throw LibcryptoError(drainingQueueAfter: "EVP_CIPHER_CTX_set_padding")
        }
        var output = [UInt8](repeating: 0, count: blockSize * 2)
        var written: Int32 = 0
        var finalWritten: Int32 = 0
        let status = output.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard EVP_EncryptUpdate(context, buffer.baseAddress, &written, block, Int32(blockSize)) == 1 else {
                return 0
            }
            return EVP_EncryptFinal_ex(context, buffer.baseAddress! + Int(written), &finalWritten)
        }
        guard status == 1 else { throw LibcryptoError(drainingQueueAfter: "EVP_EncryptUpdate(AES-128-ECB)") }
        precondition(written + finalWritten == blockSize, "AES-128-ECB wrote \(written + finalWritten) bytes")
        return Array(output.prefix(blockSize))
    }
}

/// Bluetooth's random address hash (Core spec, Vol 3, Part H, 2.2.2): `ah(k, r) = e(k, r') mod 2^24`, with `r'`
/// the 24 bits of `r` padded with zeros to 128 bits.
public enum BluetoothAddressHash {
    /// `ah(irk, prand)`.
    ///
    /// - Parameters:
    ///   - irk: The Identity Resolving Key, 16 bytes, most significant octet first.
    ///   - prand: The 24-bit random part of a resolvable private address (its three most significant octets).
    /// - Returns: The 24-bit hash (the address's three least significant octets when `irk` resolves it).
    /// - Throws: ``LibcryptoError`` from the AES-128 call.
    /// - Complexity: O(1) (one AES block).
    public static func ah(irk: [UInt8], prand: UInt32) throws(LibcryptoError) -> UInt32 {
        var block = [UInt8](repeating: 0, count: AES128.blockSize)
        block[13] = UInt8((prand >> 16) & 0xFF)
        block[14] = UInt8((prand >> 8) & 0xFF)
        block[15] = UInt8(prand & 0xFF)
        let encrypted = try AES128.encrypt(block: block, key: irk)
        return UInt32(encrypted[13]) << 16 | UInt32(encrypted[14]) << 8 | UInt32(encrypted[15])
    }
}
