import Allocator
import ArgumentParser
import AsyncPrimitives
import DaemonSupport
import DeviceRegistry
import Discovery
import Foundation
import Logging
import MACVendors
import PeerScanCore
import PeerScanMQTT
import PeerScanModel
import PeerScanServer

struct Peerscand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "peerscand",
        abstract:
            "Find the devices on the local networks (mDNS, the kernel's neighbour table, Wi-Fi, Bluetooth LE) and keep a snapshot.",
        discussion: """
            peerscand has four sources: mDNS through Avahi (every service type, or the given ones), the kernel's \
            neighbour table (ARP and NDP), which it keeps filled by probing the directly connected subnets, Wi-Fi \
            through nl80211 (the networks and access points in range, heard in the kernel's scan results), and \
            Bluetooth LE through BlueZ (the devices advertising nearby). It merges what it finds into devices — one \
            per physical host: an mDNS host name with the MAC addresses its addresses resolve to, a MAC address that \
            no mDNS host claims, or a Bluetooth LE advertiser — each identified by a UUID it keeps across sources and \
            restarts, with its vendor (from the IEEE's assignments) and whether it is online. A registry in the state \
            directory (SQLite) remembers every device seen: its first and last seen, every host name, MAC address \
            and address, and the Wi-Fi networks heard. It keeps a snapshot of two sections: "config" (the scanning \
            switch, this host and its Wi-Fi interfaces) and "networks" (the Wi-Fi networks in range, then the \
            devices; absent while scanning is off). Each change of the snapshot is a changeset of inserts, deletes, \
            moves and updates.

            The snapshot and its changesets are served over Varlink (interface io.peerscan) on --socket: \
            GetSnapshot, Monitor (the snapshot, then every changeset) and SetScanning; GetDevice, ListKnownDevices, \
            ForgetDevice, SetDeviceLabel, MergeDevices, SplitDevice and SetDeviceIRK (the registry's devices, their \
            labels, and the Bluetooth identity keys that resolve private addresses); ListKnownWiFiNetworks, \
            TrustWiFiNetwork and UntrustWiFiNetwork (the Wi-Fi networks the evil-twin checks compare with); \
            GetStatistics (probe round durations, address conflicts and evil twins counted since start, clients, \
            the process's figures: for peerscan-web's /metrics); \
            FollowAlerts, AckAlert, SendTestAlert, SetAlertRule and ListAlertRules (the alerts it decides and keeps in \
            the registry's outbox for peerscan-alerts, the sender, and the rules a person sets: docs/alerts.md). \
            peerscanctl is its client; varlinkctl, python3-varlink or socat work too. With --dump, the snapshot, \
            every changeset and the final snapshot are also written to standard output as JSON lines. SIGUSR1 \
            switches scanning off, SIGUSR2 on; the switch is kept in the state directory. SIGTERM or SIGINT stop the \
            daemon; SIGHUP is logged and ignored (nothing to reload).
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
    var socketMode = SocketPermissions.default

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

    @OptionGroup(title: "Alerts")
    var alerts: AlertOptions

    func run() async throws {
        // The vendor files read at start and the snapshot replies (4 MB at 10,000 devices) are large blocks that come
        // and go: kept mapped, each is returned when freed instead of staying in the heap (as in peerscan-web).
        Allocator.fixMappingThreshold()
        let level = logLevel
        LoggingSystem.bootstrap { _ in LogfmtLogHandler(level: level) }
        let logger = Logger(label: "peerscand")
        let mqttSettings = try makeMQTTSettings(logger: logger)

        // The state: the scanning switch, the registry, the store.
        let stateFile = ScanningStateFile(directory: stateDirectory)
        let isScanning = loadScanningSwitch(from: stateFile, logger: logger)
        let registry = makeRegistry(logger: logger)
        let bluetoothSettings = try makeBluetoothSettings(registry: registry, logger: logger)
        let clock = ScanClock.continuous
        let history = ChangeHistory(epoch: UUID().uuidString.lowercased())
        let mdns = makeMDNSSource(logger: logger)
        let outbox = AlertOutbox(registry: registry, limits: alerts.outboxLimits, logger: logger)
        let alertInputs = DrainingQueue<AlertService.Input>()
        let store = makeStore(
            isScanning: isScanning,
            interfaces: mdns.interfaces,
            registry: registry,
            bluetooth: bluetoothSettings,
            history: history,
            notices: { alertInputs.push(.notices($0)) },
            clock: clock,
            logger: logger
        )

        // The sources, and the scanner that runs them into the store.
        let sources = makeSources(mdns: mdns, clock: clock, logger: logger)
        let scanner = makeScanner(sources: sources, store: store, stateFile: stateFile, logger: logger)
        let probe = scanning.makeProbeService(store: store, scanner: scanner, logger: logger)
        let setScanning = makeScanningSwitch(scanner: scanner, probe: probe)
        let statistics = DaemonStatistics(
            scanner: scanner,
            probe: probe,
            mqttLink: mqttSettings == nil ? nil : MQTTLinkState(),
            alerts: outbox.outcomes
        )

        // The server, then every service, run until SIGTERM or SIGINT.
        let (server, socketServed, socket) = makeServer(
            store: store,
            history: history,
            registry: registry,
            scanner: scanner,
            statistics: statistics,
            alerts: makeAlertAccess(outbox: outbox, inputs: alertInputs),
            setScanning: setScanning,
            logger: logger
        )
        try await runServices(
            DaemonServices(
                store: store,
                registry: registry,
                scanner: scanner,
                server: server,
                socketServed: socketServed,
                socket: socket,
                probe: probe,
                mqttLink: statistics.mqttLink,
                setScanning: setScanning,
                bluetoothForgetAfter: bluetoothSettings.forgetAfter,
                isScanning: isScanning,
                alerts: AlertService(
                    store: store,
                    outbox: outbox,
                    inputs: alertInputs,
                    settings: alerts.policySettings,
                    clock: clock
                )
            ),
            mqtt: mqttSettings,
            logger: logger
        )
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
