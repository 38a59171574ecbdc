import Allocator
import Glibc
internal import POSIXText

/// Timing and memory readings for benchmarks.
enum Measurement {
    /// Runs `body` once to warm up, then `runs` times, and returns the median duration in milliseconds.
    static func medianMilliseconds<T>(runs: Int, _ body: () -> T) -> (milliseconds: Double, result: T) {
        var result = body()
        var samples: [Double] = []
        samples.reserveCapacity(runs)
        let clock = ContinuousClock()
        for _ in 0..<runs {
            let start = clock.now
            result = body()
            samples.append(milliseconds(clock.now - start))
        }
        samples.sort()
        return (samples[samples.count / 2], result)
    }

    static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) * 1e3 + Double(attoseconds) / 1e15
    }

    /// The process's CPU time in seconds.
    static func processCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Bytes currently allocated through malloc.
    static func allocatedBytes() -> Int {
        Allocator.allocatedBytes()
    }

    /// The resident set size and its peak since the last ``resetPeakResidentBytes()``, from /proc/self/status.
    static func residentBytes() -> (current: Int, peak: Int) {
        guard let status = POSIXText.fileText("/proc/self/status") else { return (0, 0) }
        func field(_ name: String) -> Int {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return 0 }
            return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
        }
        return (field("VmRSS"), field("VmHWM"))
    }

    /// Returns freed memory to the system and resets the peak RSS (VmHWM) to the current RSS (Linux ≥ 4.0).
    static func resetPeakResidentBytes() {
        Allocator.trim()
        let fd = open("/proc/self/clear_refs", O_WRONLY)
        if fd >= 0 {
            _ = write(fd, "5", 1)
            close(fd)
        }
    }
}
