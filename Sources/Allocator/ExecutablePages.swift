import Glibc
internal import POSIXText

extension Allocator {
    /// Returns what starting up left resident and a daemon at rest does not need: the heap's free pages (``trim()``)
    /// and the pages of the executable's own file that it touched (MADV_PAGEOUT on each mapping of /proc/self/exe);
    /// returns the bytes of the executable's mappings advised, 0 when there are none or the kernel (before 5.4)
    /// does not know the advice.
    ///
    /// A statically linked peerscand maps its one file of ~120 MB (the Swift runtime, Foundation and ICU's data in
    /// it), and starting touches much of it once — argument parsing, the runtime's and Foundation's set-up, the
    /// sources' and the registry's opening: 38 of its 51 MiB RSS at rest on a home LAN were these clean file pages,
    /// 24 MiB of them code. The kernel reclaims such pages only under memory pressure, so they count as the daemon's
    /// until then. Paged out, the ones still in use come back at their next use (a few MiB within the first probe
    /// rounds), the others stay out: docs/benchmarks.md#memory. Shared pages and ones another process maps are left
    /// alone by the kernel.
    @discardableResult
    public static func releaseStartupPages() -> Int {
        trim()
        guard let maps = POSIXText.fileText("/proc/self/maps"), let executable = executablePath() else { return 0 }
        var advised = 0
        for line in maps.split(separator: "\n") where line.hasSuffix(" " + executable) {
            let range = line.prefix { $0 != " " }.split(separator: "-")
            guard range.count == 2, let start = UInt(range[0], radix: 16), let end = UInt(range[1], radix: 16),
                end > start, let address = UnsafeMutableRawPointer(bitPattern: start)
            else { continue }
            if madvise(address, Int(end - start), MADV_PAGEOUT) == 0 { advised += Int(end - start) }
        }
        return advised
    }

    private static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return POSIXText.string(fromBuffer: buffer)  // zeroed past what readlink wrote
    }
}
