internal import CMalloc

/// glibc's allocator: what it holds, and the one setting peerscan-web changes. The only importer of CMalloc.
public enum Allocator {
    /// Allocations from this size on get a mapping of their own: glibc's starting `M_MMAP_THRESHOLD`, kept from
    /// changing by ``fixMappingThreshold()``.
    public static let mappingThreshold: Int32 = 128 * 1024

    /// Fixes glibc's mapping threshold at ``mappingThreshold``, for a process whose large buffers come and go;
    /// returns whether glibc took it (it keeps its own setting otherwise, which is only more memory, not an error).
    ///
    /// glibc serves an allocation of at least `M_MMAP_THRESHOLD` (128 KiB at start) with a mapping of its own,
    /// returned to the kernel when freed; but freeing such a mapping raises the threshold to its size (up to 32 MiB),
    /// so every later buffer of that size comes from the heap and the threads' arenas, which keep the freed memory.
    /// Fixing the threshold stops that (and glibc's automatic changes to `M_TRIM_THRESHOLD`). peerscan-web relays
    /// snapshots of ~5 MB at 10,000 devices: without it, 74–89 MiB with 5 event streams and up to 151 MiB after 5
    /// more connected at once (idle 31), kept once they were gone; with it, 32–33 MiB at every step
    /// (benchmarks/web.py `--rss-only`, docs/benchmarks.md).
    @discardableResult
    public static func fixMappingThreshold() -> Bool {
        mallopt(M_MMAP_THRESHOLD, mappingThreshold) == 1
    }

    /// Bytes currently allocated through malloc (glibc's `mallinfo2().uordblks` plus mapped blocks).
    public static func allocatedBytes() -> Int {
        let info = mallinfo2()
        return Int(info.uordblks + info.hblkhd)
    }

    /// Returns freed memory at the heap's top and in whole free pages to the kernel (`malloc_trim(0)`).
    public static func trim() {
        malloc_trim(0)
    }
}
