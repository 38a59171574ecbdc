import Allocator
import Glibc
import Testing

@Suite struct AllocatorTests {
    @Test("glibc takes the fixed mapping threshold")
    func mappingThresholdIsSet() {
        #expect(Allocator.fixMappingThreshold())
    }

    @Test("once a large block is freed, the next large one still gets a mapping of its own, returned when freed")
    func largeBlocksStayMapped() throws {
        Allocator.fixMappingThreshold()
        let first = try #require(malloc(4 << 20))
        free(first)  // glibc's dynamic threshold would rise to 4 MiB here
        let second = try #require(malloc(1 << 20))
        defer { free(second) }
        // glibc's chunk header, the word before the block: its size, with bit 1 (IS_MMAPPED) set for a mapped chunk.
        let header = UnsafeRawPointer(second).load(fromByteOffset: -MemoryLayout<UInt>.size, as: UInt.self)
        #expect(header & 0x2 != 0)
    }

    @Test("what is allocated counts a block while it lives")
    func allocatedBytesCountABlock() throws {
        let before = Allocator.allocatedBytes()
        let block = try #require(malloc(8 << 20))
        defer { free(block) }
        #expect(Allocator.allocatedBytes() - before >= 8 << 20)
    }

    @Test("start-up pages are released from the executable's own mappings, whole pages")
    func startupPagesAreTheExecutables() {
        let advised = Allocator.releaseStartupPages()
        #expect(advised > 0)
        #expect(advised % Int(getpagesize()) == 0)
    }
}
