import Discovery
import Logging
import MonitoringLog
import NIOConcurrencyHelpers
import Nl80211

/// The host's Wi-Fi as a discovery source: its wireless (station) interfaces and the access points their scans
/// found, from nl80211.
///
/// Unprivileged by default: it follows the scans others trigger (wpa_supplicant, NetworkManager, iwd) through
/// nl80211's `scan` events and dumps the kernel's scan results after each (a dump needs no privilege). With a scan
/// interval it triggers a scan on every station interface that is up at that interval, which needs CAP_NET_ADMIN:
/// without it `wifi scan refused` is logged once and it stays passive.
///
/// Reports ``WirelessObservation/interfaces(_:)`` at start and whenever an interface appears, goes, goes up or down,
/// connects or disconnects, and ``WirelessObservation/scanResults(interface:accessPoints:)`` at start (the kernel's
/// cache) and after each scan finished. No nl80211 in the kernel, or no wireless interface: `wifi unavailable` is
/// logged once and it idles (an interface that appears later is picked up). Without nl80211 (or when following its
/// events fails) it tries again after ``retryDelays`` (5 s doubling to 60 s, as a Bluetooth source's reconnection
/// starts): a Wi-Fi driver loaded later is picked up, with `wifi available`. An interface index the kernel's dump
/// repeats is `wifi interface repeated`, once while it repeats: the interface of that index first by name is kept.
///
/// Threading: the dumps are synchronous netlink requests the kernel answers at once (~1 ms), made on the task that
/// handles the event or in ``setBrowsing(_:)``. One refresh runs at a time (`refreshing`, held across its dumps, so
/// an older dump is never reported after a newer one); what was last reported and whether to report live in `state`,
/// taken to compare and yield. The kernel's events are read on the monitor's own thread, never here.
public final class WirelessDiscoverySource: DiscoverySource {
    public let events: AsyncStream<DiscoveryEvent>
    let continuation: AsyncStream<DiscoveryEvent>.Continuation  // internal: tests finish it to read what was sent
    private let kernel: any WirelessKernel
    private let interfaceNames: Set<String>
    private let scanInterval: Duration?
    private let clock: ScanClock
    private let logger: Logger
    private let state = NIOLockedValueBox(State())
    private let refreshing = NIOLock()

    private struct State {
        var browsing = false
        /// Whether nl80211 answered (the monitor subscribed).
        var available = false
        /// Whether following nl80211 failed since it last answered: its return is logged.
        var failed = false
        /// The interface indexes the last dump repeated (each logged once while it repeats).
        var repeatedIndexes: Set<Int32> = []
        var reportedInterfaces: [WirelessInterface]?
        /// The station interfaces found by the last dump, by index.
        var stations: [Int32: Nl80211Interface] = [:]
        var unavailableLogged = false
        var scanRefused = false
    }

    /// Creates the source over the kernel's nl80211.
    ///
    /// - Parameters:
    ///   - interfaces: The wireless interfaces to follow by name (`--interface`); empty for all.
    ///   - scanInterval: How often to trigger a scan (`--wifi-scan-interval`); `nil` never: follow others' scans.
    ///   - clock: The daemon's clock: an access point's `lastSeen` is on it.
    ///   - logger: Where `wifi unavailable`, `wifi available`, `wifi scan refused`, `wifi read failed` and `wifi
    ///     interface repeated` go.
    public convenience init(interfaces: [String], scanInterval: Duration?, clock: ScanClock, logger: Logger) {
        self.init(
            kernel: SystemWirelessKernel(),
            interfaces: interfaces,
            scanInterval: scanInterval,
            clock: clock,
            logger: logger
        )
    }

    /// Creates the source over a kernel (a fake, in tests).
    public init(
        kernel: any WirelessKernel,
        interfaces: [String],
        scanInterval: Duration?,
        clock: ScanClock,
        logger: Logger
    ) {
        self.kernel = kernel
        self.interfaceNames = Set(interfaces)
        self.scanInterval = scanInterval
        self.clock = clock
        self.logger = logger
        (events, continuation) = AsyncStream.makeStream()
    }

    /// How long the source waits before following nl80211 again after it failed: the first delay, doubled after
    /// each failure up to the last (the first again once nl80211 answered).
    static let retryDelays: (first: Duration, last: Duration) = (.seconds(5), .seconds(60))

    /// Follows nl80211 until cancelled. Without nl80211 logs `wifi unavailable` and tries again (``retryDelays``).
    public func run() async throws {
        await withDiscardingTaskGroup { group in
            group.addTask { [self] in
                var delay = Self.retryDelays.first
                while !Task.isCancelled {
                    do {
                        try await kernel.run()
                    } catch {
                        guard !Task.isCancelled else { return }
                        let answered = state.withLockedValue { state in
                            defer { (state.available, state.failed) = (false, true) }
                            return state.available
                        }
                        if answered { delay = Self.retryDelays.first }
                        logUnavailable("\(error)")
                    }
                    do {
                        try await clock.sleep(for: delay)
                    } catch {
                        return  // cancelled
                    }
                    delay = min(delay * 2, Self.retryDelays.last)
                }
            }
            group.addTask { [self] in
                for await event in kernel.events { handle(event) }
            }
            if let scanInterval {
                group.addTask { [self] in
                    while true {
                        do {
                            try await clock.sleep(for: scanInterval)
                        } catch {
                            return  // cancelled
                        }
                        triggerScans()
                    }
                }
            }
        }
        continuation.finish()
    }

    public func setBrowsing(_ enabled: Bool) {
        let (wasBrowsing, available) = state.withLockedValue { state in
            defer { state.browsing = enabled }
            if !enabled { state.reportedInterfaces = nil }
            return (state.browsing, state.available)
        }
        guard enabled, !wasBrowsing, available else { return }
        refresh(reportingScansOf: nil)
    }

    /// What one kernel event asks for.
    func handle(_ event: Nl80211Event) {
        switch event {
        case .subscribed:
            let returned = state.withLockedValue { state in
                defer { (state.available, state.failed) = (true, false) }
                if state.failed { state.unavailableLogged = false }  // a later loss is logged again
                return state.failed
            }
            if returned { logger.log(.wifiAvailable) }
            refresh(reportingScansOf: nil)
        case .scanFinished(let index):
            guard isStation(index) else { return }
            refresh(reportingScansOf: [index])
        case .connectionChanged(let index):
            guard isStation(index) else { return }
            refresh(reportingScansOf: [index])
        case .interfacesChanged, .overrun:
            refresh(reportingScansOf: nil)
        case .linkChanged(let index):
            guard isStation(index) else { return }
            refresh(reportingScansOf: [])
        case .scanAborted:
            break
        }
    }

    private func isStation(_ index: Int32) -> Bool { state.withLockedValue { $0.stations[index] != nil } }

    /// Dumps the interfaces and their scan results, and reports the interfaces if they changed and the scan results
    /// of `indexes` (every station interface's when `nil`).
    func refresh(reportingScansOf indexes: Set<Int32>?) {
        refreshing.withLock { refreshLocked(reportingScansOf: indexes) }
    }

    private func refreshLocked(reportingScansOf indexes: Set<Int32>?) {
        let all: [Nl80211Interface]
        do {
            all = try kernel.interfaces()
        } catch {
            logger.log(.wifiReadFailed, ["error": "\(error)"])
            return
        }
        var stations: [Nl80211Interface] = []
        var kept: [Int32: String] = [:]
        var repeated: [(station: Nl80211Interface, kept: String)] = []
        let followed = all.filter {
            $0.type == .station && (interfaceNames.isEmpty || interfaceNames.contains($0.name))
        }
        for station in followed.sorted(by: { $0.name < $1.name }) {
            if let first = kept[station.index] {
                repeated.append((station, first))
            } else {
                kept[station.index] = station.name
                stations.append(station)
            }
        }
        logRepeated(repeated)
        var results: [Int32: [Nl80211BSS]] = [:]
        for station in stations {
            do {
                results[station.index] = try kernel.scanResults(
                    interfaceIndex: station.index,
                    interfaceName: station.name
                )
            } catch {
                logger.log(.wifiReadFailed, ["interface": "\(station.name)", "error": "\(error)"])
            }
        }
        let interfaces = stations.map { WirelessConversion.interface($0, results: results[$0.index] ?? []) }
        let now = clock.now()
        let unavailable: Bool = state.withLockedValue { state in
            state.stations = Dictionary(uniqueKeysWithValues: stations.map { ($0.index, $0) })  // indexes unique
            guard state.browsing else { return false }
            if state.reportedInterfaces != interfaces {
                state.reportedInterfaces = interfaces
                continuation.yield(.wireless(.interfaces(interfaces)))
            }
            for station in stations where indexes?.contains(station.index) ?? true {
                guard let bsses = results[station.index] else { continue }
                let accessPoints = bsses.map { WirelessConversion.accessPoint($0, now: now) }
                continuation.yield(.wireless(.scanResults(interface: station.name, accessPoints: accessPoints)))
            }
            return stations.isEmpty
        }
        if unavailable {
            logUnavailable(interfaceNames.isEmpty ? "no wireless interface" : "no wireless interface of those named")
        }
    }

    /// Triggers a scan on every station interface that is up, until the kernel refuses for lack of privilege.
    func triggerScans() {
        let stations = state.withLockedValue { state in
            state.scanRefused || !state.available
                ? [] : state.stations.values.filter(\.isUp).sorted { $0.name < $1.name }
        }
        for station in stations {
            do {
                try kernel.triggerScan(interfaceIndex: station.index, interfaceName: station.name)
            } catch let error as Nl80211Error where error.code == .permissionDenied {
                state.withLockedValue { $0.scanRefused = true }
                logger.log(.wifiScanRefused, ["interface": "\(station.name)", "error": "\(error)"])
                return
            } catch let error as Nl80211Error where error.isBusy {
                continue  // a scan already runs there: its results come all the same
            } catch {
                logger.log(.wifiReadFailed, ["interface": "\(station.name)", "error": "\(error)"])
            }
        }
    }

    /// Logs each repeated interface index once while the kernel's dumps repeat it.
    private func logRepeated(_ repeated: [(station: Nl80211Interface, kept: String)]) {
        let new = state.withLockedValue { state in
            let indexes = Set(repeated.map(\.station.index))
            defer { state.repeatedIndexes = indexes }
            return repeated.filter { !state.repeatedIndexes.contains($0.station.index) }
        }
        var logged: Set<Int32> = []
        for (station, kept) in new where logged.insert(station.index).inserted {
            logger.log(
                .wifiInterfaceRepeated,
                ["index": "\(station.index)", "interface": "\(station.name)", "interface.kept": "\(kept)"]
            )
        }
    }

    private func logUnavailable(_ reason: String) {
        let first = state.withLockedValue { state in
            defer { state.unavailableLogged = true }
            return !state.unavailableLogged
        }
        if first { logger.log(.wifiUnavailable, ["reason": "\(reason)"]) }
    }
}
