import Glibc

/// glibc's allocator set for peerscan-web, whose large buffers come and go: each reply of a snapshot (~5 MB at 10,000
/// devices) is read, framed and written, then freed. peerscan-web calls ``apply()`` first thing.
///
/// glibc serves an allocation of at least `M_MMAP_THRESHOLD` (128 KiB at start) with a mapping of its own, returned to
/// the kernel when freed; but freeing such a mapping raises the threshold to its size (up to 32 MiB), so every later
/// snapshot's buffers come from the heap and the threads' arenas, which keep the freed memory. Fixing the threshold
/// stops that (and glibc's automatic changes to `M_TRIM_THRESHOLD`). Measured with benchmarks/web.py's `--rss-only`
/// (release build, 10,000 devices; RSS idle ~31 MiB): without it, 74-89 MiB with 5 event streams, 99-151 MiB after 5
/// more connected at once, and it stayed there once they were gone, with peaks up to 151 MiB (above the unit's
/// MemoryMax=128M); with it, 32-33 MiB at every step and peaks of 90-95 MiB while 5 snapshots are relayed at once.
///
/// `mallopt` is declared in `<malloc.h>`, which Swift's Glibc module leaves out (and CMalloc is the benchmark's): it is
/// looked up in the C library at run time instead.
public enum AllocatorTuning {
    /// `M_MMAP_THRESHOLD` of `<malloc.h>`.
    private static let mmapThresholdParameter: Int32 = -3
    /// Allocations from this size on get a mapping of their own: glibc's starting value, kept from changing.
    public static let mmapThreshold: Int32 = 128 * 1024

    /// Fixes the mapping threshold at ``mmapThreshold``; returns whether glibc took it (it keeps its own setting
    /// otherwise, which is only more memory, not an error).
    @discardableResult
    public static func apply() -> Bool {
        typealias MallOpt = @convention(c) (Int32, Int32) -> Int32
        guard let library = dlopen(nil, RTLD_NOW), let symbol = dlsym(library, "mallopt") else { return false }
        defer { dlclose(library) }
        let mallopt = unsafeBitCast(symbol, to: MallOpt.self)
        return mallopt(mmapThresholdParameter, mmapThreshold) == 1
    }
}
