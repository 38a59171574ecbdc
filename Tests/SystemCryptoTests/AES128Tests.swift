import SystemCrypto
import Testing

@Suite struct AES128Tests {
    /// FIPS 197, appendix C.1 (AES-128).
    @Test func encryptsTheFIPS197Example() throws {
        let key = (0..<16).map { UInt8($0) }
        let block = (0..<16).map { UInt8($0 * 0x11) }
        let expected: [UInt8] = [
            0x69, 0xc4, 0xe0, 0xd8, 0x6a, 0x7b, 0x04, 0x30, 0xd8, 0xcd, 0xb7, 0x80, 0x70, 0xb4, 0xc5, 0x5a,
        ]
        #expect(try AES128.encrypt(block: block, key: key) == expected)
    }

    /// Core spec Vol 6, Part C, 1 (sample data for `ah`): IRK ec0234a357c8ad05341010a60a397d9b, prand 708194,
    /// hash 0dfbaa.
    @Test func ahMatchesTheCoreSpecSample() throws {
        let irk: [UInt8] = [
            0xec, 0x02, 0x34, 0xa3, 0x57, 0xc8, 0xad, 0x05, 0x34, 0x10, 0x10, 0xa6, 0x0a, 0x39, 0x7d, 0x9b,
        ]
        #expect(try BluetoothAddressHash.ah(irk: irk, prand: 0x70_8194) == 0x0d_fbaa)
    }

    @Test func anotherKeyGivesAnotherHash() throws {
        let irk = [UInt8](repeating: 0x42, count: 16)
        #expect(try BluetoothAddressHash.ah(irk: irk, prand: 0x70_8194) != 0x0d_fbaa)
    }
}
