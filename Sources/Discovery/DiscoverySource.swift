/// A source of discovery events: mDNS through Avahi, the kernel's neighbour table (and the mDNS questions it asks),
/// Wi-Fi through nl80211, Bluetooth LE through BlueZ — each a module of its own that depends on this seam, never on
/// the store; the composition root (peerscand) hands them to the scan service.
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
    /// Asks a host whether it is still there; a source that can ask reports an answer as
    /// ``NeighbourObservation/hostAnswered(hostName:address:)``, and reports nothing when none came. The others ignore
    /// it (the default).
    func ask(_ question: HostQuestion)
}

extension DiscoverySource {
    public func ask(_ question: HostQuestion) {}
}

/// A question for an mDNS host whose neighbour entries stopped answering: is it still there? Asked before the host is
/// concluded offline (see `DeviceTable`'s presence).
public struct HostQuestion: Hashable, Sendable {
    /// The host name, e.g. `tv.local`.
    public var hostName: String
    /// Its known addresses: which IP protocols to ask over (a link-local IPv6 address carries a `%interface` scope).
    public var addresses: [String]
    /// The interfaces it was seen on: where to ask.
    public var interfaces: [String]

    /// Creates a question.
    public init(hostName: String, addresses: [String], interfaces: [String]) {
        self.hostName = hostName
        self.addresses = addresses
        self.interfaces = interfaces
    }
}
