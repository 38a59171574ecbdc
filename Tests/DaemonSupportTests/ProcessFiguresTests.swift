import DaemonSupport
import Testing

@Suite struct ProcessFiguresTests {
    /// A `/proc/PID/stat` line whose command holds a space and parentheses (fields are counted after the last `)`).
    private let stat =
        "4242 (peer (scan) d) S 1 4242 4242 0 -1 4194560 1000 0 0 0 250 150 0 0 20 0 9 0 360000 123456789 512 "
        + "18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 0 17 1 0 0 0 0 0"

    @Test func aStatLineGivesCPUTimeResidentMemoryAndStartTime() throws {
        let figures = try #require(
            ProcessFigures(
                stat: stat,
                bootTime: 1_764_000_000,
                ticksPerSecond: 100,
                pageSize: 4096,
                openDescriptors: 7,
                maximumDescriptors: 1024
            )
        )
        #expect(figures.cpuSeconds == 4)  // (250 + 150) / 100
        #expect(figures.residentBytes == 512 * 4096)
        #expect(figures.startTime == 1_764_003_600)  // boot + 360000 / 100
        #expect(figures.openDescriptors == 7)
    }

    @Test func aLineThatIsNoStatLineGivesNothing() {
        #expect(
            ProcessFigures(
                stat: "4242 (x) S 1 2",
                bootTime: 0,
                ticksPerSecond: 100,
                pageSize: 4096,
                openDescriptors: 0,
                maximumDescriptors: 0
            ) == nil
        )
    }

    @Test func thisProcessHasFigures() throws {
        let figures = try #require(ProcessFigures.current())
        #expect(figures.residentBytes > 0)
        #expect(figures.openDescriptors >= 3)
        #expect(figures.startTime > 1_600_000_000)
    }
}
