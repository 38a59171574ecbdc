import ArgumentParser

/// The options the flood benchmarks share: how long a run is, and the flood's length and rate.
struct FloodOptions: ParsableArguments {
    @Option(help: "Simulated minutes per run (the flood lasts --flood-minutes of them).")
    var minutes = 25

    @Option(help: "Minutes the flood lasts (from the start).")
    var floodMinutes = 10

    @Option(help: "New flood identities a minute (Bluetooth addresses, SSIDs).")
    var rate = 1000

    func validate() throws {
        guard minutes >= 1, floodMinutes >= 0, rate >= 0 else {
            throw ValidationError("--minutes must be at least 1, --flood-minutes and --rate at least 0.")
        }
    }

    /// Whether the flood lasts at `second` of the run.
    func isFlooding(at second: Int) -> Bool { second < floodMinutes * 60 }

    /// How many flood identities appear in `second` of the run: --rate a minute, spread evenly over its seconds.
    func newcomers(at second: Int) -> Int {
        isFlooding(at: second) ? (second + 1) * rate / 60 - second * rate / 60 : 0
    }
}

/// What one flood benchmark run cost the process, measured the same way by every flood benchmark: heap in use (glibc's
/// malloc statistics) at the end and at its peak, the peak RSS, and CPU per batch (median, p99) while the flood
/// lasted.
struct FloodCost {
    var heap: Double
    var peakHeap: Double
    var peakRSS: Double
    var cpuMedian: Double
    var cpuP99: Double

    /// The cost as a result line shows it: `batch` names what the CPU is per ("batch", "scan").
    func text(per batch: String) -> String {
        String(
            format: "heap %.1f MiB (peak %.1f), peak RSS %.1f MiB, CPU/%@ p50 %.3f ms p99 %.3f ms",
            heap,
            peakHeap,
            peakRSS,
            batch,
            cpuMedian,
            cpuP99
        )
    }

    /// The flood runs' costs against quiet air's, as the final line shows them.
    static func ratios(quiet: Self, bounded: Self, unbounded: Self, per batch: String) -> String {
        String(
            format: "peak RSS %.2fx (unbounded %.2fx), peak heap +%.1f MiB (unbounded +%.1f MiB), CPU per %@ p50 "
                + "%.2fx (unbounded %.2fx)",
            bounded.peakRSS / quiet.peakRSS,
            unbounded.peakRSS / quiet.peakRSS,
            bounded.peakHeap - quiet.peakHeap,
            unbounded.peakHeap - quiet.peakHeap,
            batch,
            bounded.cpuMedian / max(quiet.cpuMedian, 1e-9),
            unbounded.cpuMedian / max(quiet.cpuMedian, 1e-9)
        )
    }
}

/// Takes a flood run's ``FloodCost``: created at the run's start (it resets the peak RSS and notes the heap), told
/// when each batch starts and ends and to look at the heap, asked for the cost at the end.
struct FloodMeter {
    private let baseHeap: Int
    private var peakHeap = 0
    private var cpu: [Double] = []

    init() {
        Measurement.resetPeakResidentBytes()
        baseHeap = Measurement.allocatedBytes()
    }

    /// The process's CPU time when a batch starts, for ``batchEnded(startedAt:counts:)``.
    func batchStarts() -> Double { Measurement.processCPUSeconds() }

    /// Notes the CPU time a batch took, if it `counts` (while the flood lasts).
    mutating func batchEnded(startedAt start: Double, counts: Bool) {
        if counts { cpu.append((Measurement.processCPUSeconds() - start) * 1e3) }
    }

    /// Notes the heap in use now, for its peak.
    mutating func noteHeap() { peakHeap = max(peakHeap, Measurement.allocatedBytes() - baseHeap) }

    /// The run's cost so far.
    func cost() -> FloodCost {
        let sorted = cpu.sorted()
        let mebibyte = 1024.0 * 1024.0
        return FloodCost(
            heap: Double(Measurement.allocatedBytes() - baseHeap) / mebibyte,
            peakHeap: Double(peakHeap) / mebibyte,
            peakRSS: Double(Measurement.residentBytes().peak) / mebibyte,
            cpuMedian: sorted.isEmpty ? 0 : sorted[sorted.count / 2],
            cpuP99: sorted.isEmpty ? 0 : sorted[sorted.count * 99 / 100]
        )
    }
}
