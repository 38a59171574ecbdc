import AsyncPrimitives
import Discovery
import Logging
import MonitoringLog
import NIOConcurrencyHelpers
import SystemBus

/// Bluetooth LE devices near the host as a discovery source, through BlueZ's D-Bus API (bluetoothd) on the system
/// bus: `GetManagedObjects` at start, then `InterfacesAdded`/`InterfacesRemoved`/`PropertiesChanged`; LE discovery
/// (`SetDiscoveryFilter({Transport: le, DuplicateData: true})` + `StartDiscovery`) on every powered adapter while
/// browsing, so that each advertisement with manufacturer or service data refreshes its device's `lastSeen`.
///
/// No system bus, no bluetoothd, or no controller: `bluetooth unavailable` is logged once and it idles (bluetoothd
/// appearing on the bus, or an adapter appearing, is picked up; a lost bus is reconnected every 5 s). bluetoothd
/// leaving the bus reports no adapter; its return is `bluetooth reconnected` and everything is read again.
/// `StartDiscovery` refused (e.g. by the D-Bus policy) is `bluetooth discovery refused`, once per adapter.
///
/// Threading: the bus (`SystemBus`, not thread-safe) lives on a thread of its own that ``run()`` starts, and every
/// D-Bus call is made there. Other threads only change `control` (browsing, cancellation) under its lock and wake
/// the thread through its ``ReaderThread``.
public final class BluetoothDiscoverySource: DiscoverySource {
    public let events: AsyncStream<DiscoveryEvent>
    private let continuation: AsyncStream<DiscoveryEvent>.Continuation
    private let adapterNames: Set<String>
    private let busAddress: String?
    private let clock: ScanClock
    private let logger: Logger
    private let control = NIOLockedValueBox(Control())

    private struct Control {
        var browsing = false
        var cancelled = false
        var reader: ReaderThread?
        var unavailableLogged = false
    }

    /// Creates the source.
    ///
    /// - Parameters:
    ///   - adapters: The controllers to follow by name (`--bluetooth-adapter`, e.g. `hci0`); empty for all.
    ///   - clock: The daemon's clock: an advertisement's `lastSeen` is on it.
    ///   - logger: Where `bluetooth unavailable`, `bluetooth reconnected` and `bluetooth discovery refused` go.
    public convenience init(adapters: [String], clock: ScanClock, logger: Logger) {
        self.init(adapters: adapters, busAddress: nil, clock: clock, logger: logger)
    }

    /// Creates the source over the bus at `busAddress` (a private bus, in tests); `nil` for the system bus.
    public init(adapters: [String], busAddress: String?, clock: ScanClock, logger: Logger) {
        self.adapterNames = Set(adapters)
        self.busAddress = busAddress
        self.clock = clock
        self.logger = logger
        (events, continuation) = AsyncStream.makeStream()
    }

    /// Follows BlueZ until cancelled, on a thread of its own.
    public func run() async throws {
        let reader: ReaderThread
        do {
            reader = try SystemBus.makeReaderThread()
        } catch {
            logUnavailable("\(error)")
            continuation.finish()
            return
        }
        control.withLockedValue { $0.reader = reader }
        let cancel: @Sendable () -> Void = { [self] in wake { $0.cancelled = true } }
        await reader.run(threadNamed: "peerscan-bluez", onCancel: cancel) { [self] in serve(on: reader) }
        control.withLockedValue { $0.reader = nil }
        continuation.finish()
    }

    public func setBrowsing(_ enabled: Bool) {
        wake { $0.browsing = enabled }
    }

    private func wake(_ change: (inout Control) -> Void) {
        control.withLockedValue { control in
            change(&control)
            control.reader?.signal()
        }
    }

    private var isCancelled: Bool { control.withLockedValue { $0.cancelled } }

    /// The thread's loop: connect, follow BlueZ until the connection ends, wait, connect again.
    private func serve(on reader: ReaderThread) {
        var connectedBefore = false
        while !isCancelled {
            do {
                let bus = try SystemBus(address: busAddress)
                if connectedBefore { logger.log(.bluetoothReconnected, ["reason": "bus"]) }
                connectedBefore = true
                let session = BlueZSession(
                    bus: bus,
                    objects: BlueZObjects(adapterNames: adapterNames),
                    source: self
                )
                try session.run(on: reader)
                return  // cancelled
            } catch {
                logUnavailable("\(error)")
            }
            reader.wait(timeout: .seconds(5))
        }
    }

    // MARK: What the session on the bus thread uses

    var browsing: Bool { control.withLockedValue { $0.browsing } }

    func now() -> Duration { clock.now() }

    /// Sends observations while browsing.
    func send(_ observations: [BluetoothObservation]) {
        guard browsing else { return }
        for observation in observations { continuation.yield(.bluetooth(observation)) }
    }

    /// Handles a wakeup of the reader thread: whether to go on (not cancelled).
    func wokeUp() -> Bool { !isCancelled }

    func logUnavailable(_ reason: String) {
        let first = control.withLockedValue { control in
            defer { control.unavailableLogged = true }
            return !control.unavailableLogged
        }
        if first { logger.log(.bluetoothUnavailable, ["reason": "\(reason)"]) }
    }

    /// An adapter was found: a later loss is logged again.
    func available() { control.withLockedValue { $0.unavailableLogged = false } }

    func logReconnected(_ reason: String) { logger.log(.bluetoothReconnected, ["reason": "\(reason)"]) }

    func logSignalUnreadable(_ signal: String, error: any Error) {
        logger.log(.bluetoothSignalUnreadable, ["signal": "\(signal)", "error": "\(error)"])
    }

    func logDiscoveryRefused(adapter: String, error: any Error) {
        logger.log(.bluetoothDiscoveryRefused, ["adapter": "\(adapter)", "error": "\(error)"])
    }
}
