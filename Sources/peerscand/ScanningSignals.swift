import PeerScanCore
import ServiceLifecycle
import UnixSignals

/// SIGUSR1 switches scanning off and SIGUSR2 switches it on: a debugging aid for `--dump` runs and tests.
struct ScanningSignals: Service {
    let scanner: ScanService

    func run() async throws {
        for await signal in await UnixSignalsSequence(trapping: .sigusr1, .sigusr2).cancelOnGracefulShutdown() {
            _ = await scanner.setScanning(signal == .sigusr2)
        }
    }
}
