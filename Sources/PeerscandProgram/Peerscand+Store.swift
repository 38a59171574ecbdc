import BluetoothCompanies
import DeviceRegistry
import Discovery
import Logging
import MACVendors
import MonitoringLog
import PeerScanCore
import PeerScanServer

/// The making of the daemon's state: the scanning switch kept across restarts, the device registry, and the snapshot
/// store that decides over both.
extension Peerscand {
    /// The scanning switch as the state directory keeps it; on (logged) if it cannot be read.
    func loadScanningSwitch(from stateFile: ScanningStateFile, logger: Logger) -> Bool {
        do {
            return try stateFile.load() ?? true
        } catch {
            logger.log(.stateLoadFailed, ["error": "\(error)", "scanning": "on"])
            return true
        }
    }

    /// The device registry in --registry (memory only when empty), forgetting after --forget-after.
    func makeRegistry(logger: Logger) -> DeviceRegistry {
        DeviceRegistry(
            path: registryFile.isEmpty ? nil : registryFile,
            forgetAfter: .seconds(scanning.forgetAfter),
            logger: logger
        )
    }

    /// The Bluetooth settings: the options, the identity keys the registry holds, company names.
    func makeBluetoothSettings(registry: DeviceRegistry, logger: Logger) throws -> BluetoothSettings {
        try bluetooth.makeSettings(
            registryKeys: registry.irks,
            manufacturerOf: { BluetoothCompanies.name(for: $0) },
            logger: logger
        )
    }

    /// The snapshot store: devices from the registry's identities and labels, vendors from --vendor-directory, the
    /// kernel's limits; what it publishes is recorded in the registry and in `history` (for resuming clients), and what
    /// it decides beyond its items goes to `notices` (the alerts).
    /// - Parameters:
    ///   - isScanning: The scanning switch at start.
    ///   - interfaces: The interfaces the mDNS source browses at start.
    func makeStore(
        isScanning: Bool,
        interfaces: [String],
        registry: DeviceRegistry,
        bluetooth bluetoothSettings: BluetoothSettings,
        history: ChangeHistory,
        notices: @escaping @Sendable ([StoreNotice]) -> Void,
        clock: ScanClock,
        logger: Logger
    ) -> SnapshotStore {
        let (vendors, vendorProblems) = MACVendorDatabase.load(directory: vendorDirectory)
        for problem in vendorProblems { logger.log(.vendorDatabaseUnusable, ["error": "\(problem)"]) }
        let limits = SystemLimitSettings.read()
        for problem in limits.problems { logger.log(.systemLimitUnknown, ["error": "\(problem)"]) }
        return SnapshotStore(
            isScanning: isScanning,
            interfaces: interfaces,
            devices: DeviceTable(
                presence: DeviceTable.Presence(
                    offlineAfter: .seconds(scanning.offlineAfter),
                    forgetAfter: .seconds(scanning.forgetAfter),
                    staleGrace: scanning.staleGrace
                ),
                vendorOf: { vendors.vendor(for: $0) },
                identities: registry.identities,
                labels: registry.labels,
                bluetooth: bluetoothSettings
            ),
            wireless: wifi.makeTable(known: registry.knownNetworks, vendorOf: { vendors.vendor(for: $0) }),
            mdns: MDNSHostTable(settles: scanning.settleWindow > 0),
            initialBrowseQuietPeriod: scanning.startupSettle > 0 ? .seconds(1) : nil,
            systemLimits: limits.settings,
            clock: clock,
            alertsNewDevices: alertNewDevices,
            recorders: StoreRecorders(
                devices: { registry.record($0) },
                networks: { registry.record($0) },
                updates: { history.record($0) },
                notices: notices
            )
        )
    }
}
