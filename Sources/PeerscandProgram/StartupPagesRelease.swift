import Allocator
import PeerScanCore
import ServiceLifecycle

/// Hands back the memory that starting up left resident (`Allocator.releaseStartupPages`: the heap's free pages and
/// the executable's file pages) once, when the daemon is at rest: `delay` after the initial browse settled, by when
/// the first probe round and the registry's first write are done. What runs after that faults its pages back in.
struct StartupPagesRelease: Service {
    let store: SnapshotStore
    let delay: Duration

    func run() async throws {
        // A shutdown before the release cancels the wait (and the release), then waits for nothing.
        try? await cancelWhenGracefulShutdown {
            await store.waitUntilInitialBrowseSettled()
            try await Task.sleep(for: delay)
            Allocator.releaseStartupPages()
            try await gracefulShutdown()
        }
    }
}
