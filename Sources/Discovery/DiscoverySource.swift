/// A source of discovery events: Avahi, the kernel's neighbour table — each a module of its own that depends on this
/// seam, never on the store; the composition root (peerscand) hands them to the scan service.
///
/// A source must deliver its events in order through ``events``; ``run()`` does its work until the task is
/// cancelled. ``setBrowsing(_:)`` starts and stops browsing while the source stays connected (so that its state is
/// still reported): when browsing stops, the consumer forgets what was found; the source need not report removals.
public protocol DiscoverySource: Sendable {
    /// The events, in order. Iterated by one consumer.
    var events: AsyncStream<DiscoveryEvent> { get }
    /// Runs the source until the surrounding task is cancelled.
    func run() async throws
    /// Starts or stops browsing.
    func setBrowsing(_ enabled: Bool)
}
