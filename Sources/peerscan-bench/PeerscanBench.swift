import ArgumentParser

@main
struct PeerscanBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "peerscan-bench",
        abstract: "Benchmarks for peerscan, each compared against a baseline in the same run.",
        discussion: """
            Build in release mode for meaningful numbers:
              swift run -c release peerscan-bench diff --count 100000 --sections 10
            """,
        subcommands: [
            BeaconFloodBenchmark.self, DiffBenchmark.self, EncodingBenchmark.self, FanoutBenchmark.self,
            FanoutClients.self, MQTTBenchmark.self, PresenceCheckBenchmark.self,
            RadioFloodBenchmark.self,
            RegistryChurnBenchmark.self, RegistryFill.self,
        ]
    )
}
