import Nl80211

/// What ``WirelessDiscoverySource`` needs from the kernel: nl80211's requests (``Nl80211Client``) and events
/// (``Nl80211Monitor``). A protocol so that the source's logic can be tested against a fake.
public protocol WirelessKernel: Sendable {
    /// The events, in order; see ``Nl80211Monitor/events``.
    var events: AsyncStream<Nl80211Event> { get }
    /// Follows the events until cancelled; see ``Nl80211Monitor/run()``.
    func run() async throws
    /// See ``Nl80211Client/interfaces()``.
    func interfaces() throws -> [Nl80211Interface]
    /// See ``Nl80211Client/scanResults(interfaceIndex:interfaceName:)``.
    func scanResults(interfaceIndex: Int32, interfaceName: String) throws -> [Nl80211BSS]
    /// See ``Nl80211Client/triggerScan(interfaceIndex:interfaceName:)``.
    func triggerScan(interfaceIndex: Int32, interfaceName: String) throws
}

/// The real kernel, through nl80211.
public struct SystemWirelessKernel: WirelessKernel {
    private let client = Nl80211Client()
    private let monitor = Nl80211Monitor()

    /// Creates the kernel's access.
    public init() {}

    public var events: AsyncStream<Nl80211Event> { monitor.events }
    public func run() async throws { try await monitor.run() }
    public func interfaces() throws -> [Nl80211Interface] { try client.interfaces() }
    public func scanResults(interfaceIndex: Int32, interfaceName: String) throws -> [Nl80211BSS] {
        try client.scanResults(interfaceIndex: interfaceIndex, interfaceName: interfaceName)
    }
    public func triggerScan(interfaceIndex: Int32, interfaceName: String) throws {
        try client.triggerScan(interfaceIndex: interfaceIndex, interfaceName: interfaceName)
    }
}
