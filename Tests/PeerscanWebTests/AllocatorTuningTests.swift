import Glibc
import Testing

@testable import PeerscanWeb

@Suite struct AllocatorTuningTests {
    @Test("glibc's mallopt is found at run time and takes the fixed mapping threshold")
    func mapThresholdIsSet() {
        #expect(AllocatorTuning.apply())
    }

    @Test("once a large block is freed, the next large one still gets a mapping of its own, returned when freed")
    func largeBlocksStayMapped() throws {
        AllocatorTuning.apply()
        let first = try #require(malloc(4 << 20))
        free(first)  // glibc's dynamic threshold would rise to 4 MiB here
        let second = try #require(malloc(1 << 20))
        defer { free(second) }
        // glibc's chunk header, the word before the block: its size, with bit 1 (IS_MMAPPED) set for a mapped chunk.
        let header = UnsafeRawPointer(second).load(fromByteOffset: -MemoryLayout<UInt>.size, as: UInt.self)
        #expect(header & 0x2 != 0)
    }
}
