import ArgumentParser
import AvahiBrowser
import AvahiSource
import BluetoothCompanies
import BluetoothSource
import DaemonSupport
import DeviceRegistry
import Discovery
import Foundation
import Logging
import MACVendors
import MDNSQuestions
import MQTTClient
import MonitoringLog
import NeighbourSource
import NeighbourTable
import PeerScanCore
import PeerScanMQTT
import PeerScanModel
import PeerScanServer
import Probing
import ServiceLifecycle
import VarlinkServer
import WirelessSource

@main
struct Peerscand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "peerscand",
        abstract: "Find the devices on the local networks (mDNS and the kernel's neighbour table) and keep a snapshot.",
        discussion: """
            peerscand browses every service type (or the given ones) through avahi-daemon and follows the kernel's \
            neighbour table (ARP and NDP), which it keeps filled by probing the directly connected subnets. It \
            merges what it finds into devices — one per physical host: an mDNS host name with the MAC addresses its \
            addresses resolve to, or a MAC address that no mDNS host claims — each identified by a UUID it keeps \
            across sources and restarts, with its vendor (from the IEEE's assignments) and whether it is online. A \
            registry in the state directory (SQLite) remembers every device seen: its first and last seen, every host \
            name, MAC address and address. It keeps a \
            snapshot of two sections: "config" (the scanning switch and this host) and "networks" (the devices, \
            absent while scanning is off). Each change of the snapshot is a changeset of inserts, deletes, moves \
            and updates.

            The snapshot and its changesets are served over Varlink (interface io.peerscan) on --socket: \
            GetSnapshot, Monitor (the snapshot, then every changeset), SetScanning, and GetDevice, ListKnownDevices, \
            SetDeviceLabel and ForgetDevice (the registry), TrustWiFiNetwork and UntrustWiFiNetwork (the Wi-Fi \
            networks the evil-twin checks compare with). peerscanctl is its client; \
            varlinkctl, python3-varlink or socat work too. With --dump, the snapshot, every changeset and the final \
            snapshot are also written to standard output as JSON lines. SIGUSR1 switches scanning off, SIGUSR2 on; \
            the switch is kept in the state directory. SIGTERM or SIGINT stop the daemon; SIGHUP is logged and \
            ignored (nothing to reload).
            """,
        version: PeerScanVersion.current
    )

    @Option(name: .customLong("interface"), help: "Browse only this interface (repeatable; default: all).")
    var interfaces: [String] = []

    @Option(
        name: .customLong("service-type"),
        help: "Browse only this service type, e.g. _ssh._tcp (repeatable; default: all types)."
    )
    var serviceTypes: [String] = []

    @Option(help: "The browsing domain.")
    var domain = "local"

    @Option(help: "Where the scanning switch and the device registry are kept across restarts.")
    var stateDirectory = "/var/lib/peerscan"

    @Option(
        help: ArgumentHelp(
            "The device registry's SQLite database (default: registry.sqlite in --state-directory); empty: memory only.",
            discussion: """
                Every device seen, with the keys it is known by (host names, MAC addresses), when it was first and \
                last seen, and every address: what keeps a device's id across sources and restarts (peerscanctl \
                show, known, forget). Written every second in one transaction, off the changeset path. A \
                database that cannot be used is moved aside (registry.sqlite.broken-TIME) and a fresh one started.
                """
        )
    )
    var registry: String?

    var registryFile: String { registry ?? "\(stateDirectory)/registry.sqlite" }

    @OptionGroup
    var scanning: ScanningOptions

    @Option(help: "Where the IEEE assignment files (Debian's ieee-data: oui.csv, mam.csv, oui36.csv, iab.csv) are.")
    var vendorDirectory = MACVendorDatabase.defaultDirectory

    @Option(help: "The lowest level logged: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .info

    @Option(help: "The Varlink socket to serve io.peerscan on.")
    var socket = PeerScanWire.defaultSocketPath

    @Option(
        help: "The socket's permissions, in octal: who may connect (reading is open to all local users by default)."
    )
    var socketMode = "0666"

    @Option(
        help:
            "The group whose members may switch scanning and label, merge, split or forget devices (root always may); empty for root only."
    )
    var controlGroup = "peerscan"

    @Option(help: "How many changesets are queued for a client that does not read before it is resynced.")
    var clientQueue = 256

    @Option(help: "The largest message a client may send, in bytes.")
    var maxMessageSize = 65536

    @Option(
        help: ArgumentHelp(
            "The most socket connections at once (default: what the open-file limit leaves room for, at most 4096).",
            discussion: """
                The last 32 are kept for root and the control group, so that an operator is never locked out by \
                other users' connections. Reaching the process's open-file limit instead would lock out everyone.
                """
        )
    )
    var maxConnections: Int?

    @Option(help: "The most connections one user other than root and the control group may hold at once.")
    var maxConnectionsPerUser = 64

    @Flag(
        help: ArgumentHelp(
            "Log every new device at warning, not only the important ones.",
            discussion: """
                A device never seen before (or since it was forgotten) is logged as `new device` at notice; with this \
                switch at warning, as arpwatch reports a new station, so that `journalctl -p warning` shows it. An \
                important device's lines (peerscanctl set --important) are at warning either way.
                """
        )
    )
    var alertNewDevices = false

    @Flag(help: "Also write the snapshot and every changeset as JSON lines to standard output.")
    var dump = false

    @OptionGroup(title: "Wi-Fi")
    var wifi: WiFiOptions

    @OptionGroup(title: "Bluetooth")
    var bluetooth: BluetoothOptions

    @OptionGroup(title: "MQTT")
    var mqtt: MQTTOptions

    func run() async throws {
        let level = logLevel
        LoggingSystem.bootstrap { _ in LogfmtLogHandler(level: level) }
        let logger = Logger(label: "peerscand")

        let mqttSettings: (MQTTConfiguration, MQTTMirror.Settings)?
        do {
            mqttSettings = try mqtt.settings(hostName: ProcessInfo.processInfo.hostName)
        } catch {
            logger.log(.mqttUnusable, ["error": "\(error)"])
            throw ExitCode.failure
        }
        let stateFile = ScanningStateFile(directory: stateDirectory)
        var isScanning = true
        do {
            isScanning = try stateFile.load() ?? true
        } catch {
            logger.log(.stateLoadFailed, ["error": "\(error)", "scanning": "on"])
        }
        let browser = AvahiBrowser(
            configuration: .init(interfaces: interfaces, serviceTypes: serviceTypes, domain: domain),
            logger: logger
        )
        let source = AvahiDiscoverySource(browser: browser, interfaces: interfaces)
        let (vendors, vendorProblems) = MACVendorDatabase.load(directory: vendorDirectory)
        for problem in vendorProblems { logger.log(.vendorDatabaseUnusable, ["error": "\(problem)"]) }
        let neighbours = scanning.neighbourTable ? NeighbourMonitor(logger: logger) : nil
        let forgetDuration = Duration.milliseconds(Int64(scanning.forgetAfter * 1000))
        let controlGroupName = controlGroup.isEmpty ? nil : controlGroup
        let registry = DeviceRegistry(
            path: registryFile.isEmpty ? nil : registryFile,
            forgetAfter: forgetDuration,
            logger: logger
        )
        let bluetoothSettings = try bluetooth.makeSettings(
            registryKeys: registry.irks,
            manufacturerOf: { BluetoothCompanies.name(for: $0) },
            logger: logger
        )
        let limits = SystemLimitSettings.read()
        for problem in limits.problems { logger.log(.systemLimitUnknown, ["error": "\(problem)"]) }
        let clock = ScanClock.continuous
        let epoch = UUID().uuidString.lowercased()
        let history = ChangeHistory(epoch: epoch)
        let store = SnapshotStore(
            isScanning: isScanning,
            interfaces: source.interfaces,
            settles: scanning.settleWindow > 0,
            waitsForInitialBrowse: scanning.startupSettle > 0,
            initialBrowseQuietPeriod: .seconds(1),
            presence: DeviceTable.Presence(
                offlineAfter: .milliseconds(Int64(scanning.offlineAfter * 1000)),
                forgetAfter: forgetDuration,
                staleGrace: scanning.staleGrace
            ),
            vendorOf: { vendors.vendor(for: $0) },
            identities: registry.identities,
            labels: registry.labels,
            alertsNewDevices: alertNewDevices,
            clock: clock,
            recordDevices: { registry.record($0) },
            wireless: wifi.makeTable(known: registry.knownNetworks, vendorOf: { vendors.vendor(for: $0) }),
            bluetooth: bluetoothSettings,
            recordNetworks: { registry.record($0) },
            recordUpdate: { history.record($0) },
            systemLimits: limits.settings
        )
        // The sources: one line each.
        var sources: [any DiscoverySource] = [source]
        if let neighbours {
            sources.append(NeighbourDiscoverySource(monitor: neighbours, clock: clock, logger: logger))
            sources.append(MDNSQuestionSource(logger: logger))
        }
        if let wifi = wifi.sourceSettings(interfaces: interfaces) {
            sources.append(
                WirelessDiscoverySource(
                    interfaces: wifi.interfaces,
                    scanInterval: wifi.scanInterval,
                    clock: clock,
                    logger: logger
                )
            )
        }
        if let bluetooth = bluetooth.sourceSettings() {
            sources.append(BluetoothDiscoverySource(adapters: bluetooth.adapters, clock: clock, logger: logger))
        }
        let scanner = ScanService(
            sources: sources,
            store: store,
            stateFile: stateFile,
            resyncGracePeriod: .milliseconds(Int(scanning.resyncGrace * 1000)),
            settleWindow: .milliseconds(Int(scanning.settleWindow * 1000)),
            initialBrowseLimit: scanning.startupSettle > 0 ? .milliseconds(Int(scanning.startupSettle * 1000)) : nil,
            presenceInterval: .seconds(1),
            logger: logger
        )
        let probe = scanning.makeProbeService(store: store, scanner: scanner, logger: logger)
        // Switching scanning on asks for a probe round (the floor bounds how often clients can make one start).
        let setScanning: @Sendable (Bool) async -> UInt64 = { [probe] enabled in
            let sequence = await scanner.setScanning(enabled)
            if enabled { probe?.askForRound() }
            return sequence
        }
        let interface = PeerScanInterface(
            store: store,
            epoch: epoch,
            history: history,
            controlGroup: controlGroupName,
            clientQueueLimit: clientQueue,
            memory: DeviceMemory(
                knownDevices: { registry.knownDevices() },
                device: { registry.device($0) },
                forget: { await scanner.forget([$0])?.first ?? false },
                setLabel: { await scanner.setLabel($1, of: $0) },
                merge: { await scanner.merge($1, into: $0) },
                split: { await scanner.split($1, from: $0) },
                setIRK: { await scanner.setIRK($1, for: $0) },
                editWiFiTrust: { await scanner.editWiFiTrust($0) }
            ),
            setScanning: setScanning
        )
        // Socket activation: adopt the listening socket systemd passed (peerscand.socket), else bind --socket.
        let activated = SocketActivation.listeningDescriptors().first(where: SocketActivation.isListeningUnixStream)
        let listener: VarlinkServer.Listener =
            activated.map { .fileDescriptor($0) } ?? .path(socket, permissions: mode_t(UInt32(socketMode, radix: 8)!))
        let (socketServed, socketServedContinuation) = AsyncStream<Void>.makeStream()
        let server = VarlinkServer(
            listener: listener,
            interfaces: [interface],
            info: .init(
                vendor: "peerscan",
                product: "peerscand",
                version: PeerScanVersion.current,
                url: "man:peerscand(8)"
            ),
            maximumMessageSize: maxMessageSize,
            limits: ConnectionLimits(
                maximumConnections: maxConnections ?? ConnectionLimits.connectionsForFileLimit(),
                maximumConnectionsPerUser: maxConnectionsPerUser,
                // Four messages of the largest size: room for a burst of pipelined calls, not for a flood.
                maximumQueuedBytes: 4 * maxMessageSize,
                privilegedGroup: controlGroupName
            ),
            logger: logger,
            ready: {
                socketServedContinuation.yield()
                socketServedContinuation.finish()
            }
        )
        let systemd = SystemdIntegration(
            notifier: SystemdNotifier(),
            store: store,
            socketServed: socketServed,
            watchdogTimeout: SystemdWatchdog.timeout(),
            logger: logger
        )
        // Started in this order, shut down in the reverse one: the server stops taking calls first, then the scanner
        // applies what is pending and ends the subscriptions, then --dump writes its final line.
        var services: [any Service] = [
            systemd, DaemonSignals(signals: await DaemonSignals.trap(), setScanning: setScanning, logger: logger),
        ]
        if dump { services.append(DumpService(store: store)) }
        if let (configuration, settings) = mqttSettings {
            services.append(
                MQTTService(
                    store: store,
                    configuration: configuration,
                    settings: settings,
                    isRemembered: { registry.remembers($0) },
                    logger: logger
                )
            )
        }
        services += [
            RegistryService(
                registry: registry,
                scanner: scanner,
                forgetAfter: forgetDuration,
                bluetoothForgetAfter: bluetoothSettings.forgetAfter,
                networkLimit: wifi.networkRowLimit,
                logger: logger
            ),
            scanner, server,
        ]
        if let probe { services.append(probe) }
        let group = ServiceGroup(
            configuration: .init(
                services: services.map { .init(service: $0) },
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        logger.log(
            .starting,
            [
                "version": "\(PeerScanVersion.current)",
                "scanning": "\(isScanning)",
                "interfaces": "\(interfaces.joined(separator: ","))",
                "socket": "\(activated.map { "fd \($0) (socket activation)" } ?? socket)",
            ]
        )
        try await group.run()
        logger.log(.stopped)
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
