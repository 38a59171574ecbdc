import Glibc
internal import POSIXText

/// The process's own figures, as Prometheus's `process_*` metrics hold them: resident memory, CPU time, open and
/// allowed descriptors, start time — read from `/proc/self` (`stat`, `fd`) and `/proc/stat` (`btime`).
public struct ProcessFigures: Sendable, Hashable {
    /// Resident memory, in bytes (`stat`'s `rss` × the page size).
    public var residentBytes: UInt64
    /// CPU time, user and system, in seconds (`utime` + `stime`).
    public var cpuSeconds: Double
    /// Open file descriptors (the entries of `/proc/self/fd`).
    public var openDescriptors: Int
    /// The soft limit of open file descriptors (`RLIMIT_NOFILE`).
    public var maximumDescriptors: Int
    /// When the process started, in seconds since the Unix epoch (the boot time + `starttime`).
    public var startTime: Double

    /// Figures.
    public init(
        residentBytes: UInt64,
        cpuSeconds: Double,
        openDescriptors: Int,
        maximumDescriptors: Int,
        startTime: Double
    ) {
        self.residentBytes = residentBytes
        self.cpuSeconds = cpuSeconds
        self.openDescriptors = openDescriptors
        self.maximumDescriptors = maximumDescriptors
        self.startTime = startTime
    }

    /// The figures of a `/proc/PID/stat` line.
    ///
    /// - Parameters:
    ///   - stat: The line (`pid (comm) state ppid …`; `comm` may hold spaces and parentheses: fields are counted
    ///     after its last `)`).
    ///   - bootTime: `/proc/stat`'s `btime`, in seconds since the epoch.
    ///   - ticksPerSecond: `sysconf(_SC_CLK_TCK)`.
    ///   - pageSize: `sysconf(_SC_PAGESIZE)`.
    ///   - openDescriptors: The open descriptors.
    ///   - maximumDescriptors: The descriptor limit.
    /// - Returns: `nil` for a line that is not one.
    public init?(
        stat: String,
        bootTime: UInt64,
        ticksPerSecond: UInt64,
        pageSize: UInt64,
        openDescriptors: Int,
        maximumDescriptors: Int
    ) {
        guard ticksPerSecond > 0, let close = stat.lastIndex(of: ")") else { return nil }
        // Field 3 (state) is the first after the command; utime is field 14, stime 15, starttime 22, rss 24.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 21, let utime = UInt64(fields[11]), let stime = UInt64(fields[12]),
            let start = UInt64(fields[19]), let rss = Int64(fields[21])
        else { return nil }
        self.init(
            residentBytes: UInt64(max(rss, 0)) * pageSize,
            cpuSeconds: Double(utime + stime) / Double(ticksPerSecond),
            openDescriptors: openDescriptors,
            maximumDescriptors: maximumDescriptors,
            startTime: Double(bootTime) + Double(start) / Double(ticksPerSecond)
        )
    }

    /// This process's figures now; `nil` where `/proc` cannot be read.
    public static func current() -> ProcessFigures? {
        guard let stat = POSIXText.fileText("/proc/self/stat"),
            let bootLine = POSIXText.fileText("/proc/stat")?.split(separator: "\n").first(where: {
                $0.hasPrefix("btime ")
            }),
            let bootTime = UInt64(bootLine.dropFirst("btime ".count))
        else { return nil }
        var limit = rlimit()
        let maximum = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 ? Int(min(limit.rlim_cur, 1 << 30)) : 0
        return ProcessFigures(
            stat: stat,
            bootTime: bootTime,
            ticksPerSecond: UInt64(max(sysconf(Int32(_SC_CLK_TCK)), 1)),
            pageSize: UInt64(max(sysconf(Int32(_SC_PAGESIZE)), 1)),
            openDescriptors: openDescriptorCount(),
            maximumDescriptors: maximum
        )
    }

    /// The entries of `/proc/self/fd`, less the one reading it.
    private static func openDescriptorCount() -> Int {
        guard let directory = opendir("/proc/self/fd") else { return 0 }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            let isDot = withUnsafeBytes(of: entry.pointee.d_name) { $0.first == UInt8(ascii: ".") }
            if !isDot { count += 1 }
        }
        return max(count - 1, 0)
    }
}
