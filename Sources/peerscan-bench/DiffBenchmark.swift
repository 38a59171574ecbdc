import ArgumentParser
import Diffable
import Foundation

/// `peerscan-bench diff`: times `Snapshot.difference(from:)` against Swift's `CollectionDifference` in one run.
struct DiffBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Time Diffable's snapshot diff against the standard library's CollectionDifference.",
        discussion: """
            Workload: N unique UUID-keyed items (spread over K sections); then, from a fixed seed, delete 10%, change \
            the content of 10% of the survivors, move 10% of the survivors to random positions (across sections when \
            K > 1), and insert 10% new items. Reports the median of R runs after one warm-up run, checks that the \
            changeset replays to the new snapshot, and compares the number of moves with the minimum computed from \
            the workload. The baseline is `difference(from:).inferringMoves()` on the flat sequence of identifiers; \
            being quadratic-ish, it is skipped above 20,000 items unless --baseline always is given.

            --count and --sections may be repeated: every combination is measured, one line (or JSON object) each.
            """
    )

    enum BaselineMode: String, ExpressibleByArgument, CaseIterable {
        case auto, always, never
    }

    @Option(name: .customLong("count"), help: "The number of items N (repeatable).")
    var counts: [Int] = [10_000]

    @Option(name: .customLong("sections"), help: "The number of sections K (repeatable).")
    var sectionCounts: [Int] = [1]

    @Option(help: "The seed of the workload.")
    var seed: UInt64 = 42

    @Option(help: "The number of timed runs R; the median is reported.")
    var runs: Int = 11

    @Option(help: "When to time the baseline: auto (up to 20,000 items), always, never.")
    var baseline: BaselineMode = .auto

    @Flag(help: "Print one JSON object per measurement.")
    var json = false

    func validate() throws {
        guard counts.allSatisfy({ $0 >= 10 }) else { throw ValidationError("--count must be at least 10.") }
        guard sectionCounts.allSatisfy({ $0 >= 1 }) else { throw ValidationError("--sections must be at least 1.") }
        guard runs >= 1 else { throw ValidationError("--runs must be at least 1.") }
    }

    /// One measurement, as printed with `--json`.
    struct Result: Encodable {
        var count: Int
        var sections: Int
        var seed: UInt64
        var runs: Int
        var ours_ms: Double
        var baseline_ms: Double?
        var ratio: Double?
        var moves: Int
        var minimal_moves: Int
        var inserts: Int
        var deletes: Int
        var updates: Int
        var roundtrip_ok: Bool
        var snapshots_bytes: Int
        var diff_peak_bytes: Int
        var memory_ratio: Double
    }

    func run() throws {
        if !json {
            print(
                "| N | sections | ours (ms) | baseline (ms) | ratio | moves | minimal moves | round trip | diff peak / snapshots |"
            )
            print("|---:|---:|---:|---:|---:|---:|---:|:---:|---:|")
        }
        var failed = false
        for count in counts {
            for sections in sectionCounts {
                let result = try measure(count: count, sections: sections)
                failed = failed || !result.roundtrip_ok || result.moves != result.minimal_moves
                report(result)
            }
        }
        if failed { throw ExitCode(1) }
    }

    private func measure(count: Int, sections: Int) throws -> Result {
        let before = Measurement.allocatedBytes()
        let workload = try DiffWorkload(count: count, sections: sections, seed: seed)
        let snapshotsBytes = Measurement.allocatedBytes() - before

        // Memory: the peak resident growth of one diff, over the size of the two snapshots.
        Measurement.resetPeakResidentBytes()
        let resident = Measurement.residentBytes().current
        let probe = workload.new.difference(from: workload.old)
        let diffPeakBytes = Measurement.residentBytes().peak - resident
        withExtendedLifetime(probe) {}

        let (ours, changes) = Measurement.medianMilliseconds(runs: runs) {
            workload.new.difference(from: workload.old)
        }
        let roundtrip = (try? workload.old.applying(changes)) == workload.new

        var baselineMilliseconds: Double?
        if baseline == .always || (baseline == .auto && count <= 20_000) {
            let oldIDs = workload.old.itemIdentifiers
            let newIDs = workload.new.itemIdentifiers
            baselineMilliseconds =
                Measurement.medianMilliseconds(runs: runs) {
                    newIDs.difference(from: oldIDs).inferringMoves()
                }.milliseconds
        }
        return Result(
            count: count,
            sections: sections,
            seed: seed,
            runs: runs,
            ours_ms: ours,
            baseline_ms: baselineMilliseconds,
            ratio: baselineMilliseconds.map { $0 / ours },
            moves: changes.itemMoves.count,
            minimal_moves: workload.minimalMoves,
            inserts: changes.itemInserts.count,
            deletes: changes.itemDeletes.count,
            updates: changes.itemUpdates.count,
            roundtrip_ok: roundtrip,
            snapshots_bytes: snapshotsBytes,
            diff_peak_bytes: diffPeakBytes,
            memory_ratio: Double(diffPeakBytes) / Double(max(snapshotsBytes, 1))
        )
    }

    private func report(_ result: Result) {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try! encoder.encode(result), as: UTF8.self))
            return
        }
        func format(_ value: Double?, _ digits: Int) -> String {
            value.map { String(format: "%.\(digits)f", $0) } ?? "skipped"
        }
        print(
            "| \(result.count) | \(result.sections) | \(format(result.ours_ms, 2)) | \(format(result.baseline_ms, 1)) "
                + "| \(format(result.ratio, 0)) | \(result.moves) | \(result.minimal_moves) "
                + "| \(result.roundtrip_ok ? "ok" : "FAILED") | \(format(result.memory_ratio, 2)) |"
        )
    }
}
