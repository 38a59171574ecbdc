import AvahiBrowser
import AvahiSource
import BluetoothSource
import Discovery
import Logging
import MDNSQuestions
import NeighbourSource
import NeighbourTable
import PeerScanCore
import Probing
import WirelessSource

/// The making of the sources — mDNS through Avahi, the kernel's neighbour table (and the mDNS questions it needs),
/// Wi-Fi through nl80211, Bluetooth LE through BlueZ — and of the scan service that runs them into the store.
extension Peerscand {
    /// The mDNS source: avahi-daemon browsed on --interface (default: all), for --service-type in --domain.
    func makeMDNSSource(logger: Logger) -> AvahiDiscoverySource {
        let browser = AvahiBrowser(
            configuration: .init(interfaces: interfaces, serviceTypes: serviceTypes, domain: domain),
            logger: logger
        )
        return AvahiDiscoverySource(browser: browser, interfaces: interfaces)
    }

    /// Every source the options switch on, in ``DaemonSource``'s order (mDNS first).
    func makeSources(mdns: AvahiDiscoverySource, clock: ScanClock, logger: Logger) -> [any DiscoverySource] {
        DaemonSource.allCases.flatMap { makeSources(of: $0, mdns: mdns, clock: clock, logger: logger) }
    }

    /// The sources of one kind: none when its option switches it off.
    private func makeSources(
        of kind: DaemonSource,
        mdns: AvahiDiscoverySource,
        clock: ScanClock,
        logger: Logger
    ) -> [any DiscoverySource] {
        switch kind {
        case .mdns:
            return [mdns]
        case .neighbourTable:
            guard scanning.neighbourTable else { return [] }
            return [
                NeighbourDiscoverySource(monitor: NeighbourMonitor(logger: logger), clock: clock, logger: logger),
                MDNSQuestionSource(logger: logger),
            ]
        case .wifi:
            guard let wifi = wifi.sourceSettings(interfaces: interfaces) else { return [] }
            return [
                WirelessDiscoverySource(
                    interfaces: wifi.interfaces,
                    scanInterval: wifi.scanInterval,
                    clock: clock,
                    logger: logger
                )
            ]
        case .bluetooth:
            guard let bluetooth = bluetooth.sourceSettings() else { return [] }
            return [BluetoothDiscoverySource(adapters: bluetooth.adapters, clock: clock, logger: logger)]
        }
    }

    /// The scan service: runs `sources` into `store`, keeps the scanning switch in `stateFile`.
    func makeScanner(
        sources: [any DiscoverySource],
        store: SnapshotStore,
        stateFile: ScanningStateFile,
        logger: Logger
    ) -> ScanService {
        ScanService(
            sources: sources,
            store: store,
            stateFile: stateFile,
            resyncGracePeriod: .seconds(scanning.resyncGrace),
            settleWindow: .seconds(scanning.settleWindow),
            initialBrowseLimit: scanning.startupSettle > 0 ? .seconds(scanning.startupSettle) : nil,
            logger: logger
        )
    }
}

/// The scanning switch as clients and signals use it: switching scanning on also asks `probe` for a round (its floor
/// bounds how often clients can make one start). Returns the sequence number of the snapshot that shows the switch.
func makeScanningSwitch(scanner: ScanService, probe: ProbeService?) -> @Sendable (Bool) async -> UInt64 {
    { enabled in
        let sequence = await scanner.setScanning(enabled)
        if enabled { probe?.askForRound() }
        return sequence
    }
}
