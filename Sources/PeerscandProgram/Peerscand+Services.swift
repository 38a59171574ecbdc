import ArgumentParser
import DaemonSupport
import DeviceRegistry
import Foundation
import Logging
import MQTTClient
import MonitoringLog
import PeerScanCore
import PeerScanMQTT
import PeerScanModel
import Probing
import ServiceLifecycle
import VarlinkServer

/// The daemon's long-running parts, what each is given, and the order they start and stop in.
struct DaemonServices {
    let store: SnapshotStore
    let registry: DeviceRegistry
    let scanner: ScanService
    let server: VarlinkServer
    /// Ends once the server accepts connections.
    let socketServed: AsyncStream<Void>
    /// The socket served, as the `starting` line names it.
    let socket: String
    let probe: ProbeService?
    /// The MQTT mirror's connection state (GetStatistics reads it), if a broker is configured.
    let mqttLink: MQTTLinkState?
    let setScanning: @Sendable (Bool) async -> UInt64
    /// --bluetooth-forget-after, as the store's Bluetooth settings hold it.
    let bluetoothForgetAfter: Duration
    /// The scanning switch at start.
    let isScanning: Bool
    /// Decides the alerts and writes them to the outbox.
    let alerts: AlertService
}

extension Peerscand {
    /// The MQTT mirror's settings from the options, or `nil` without --mqtt-broker; an unusable setting is logged
    /// (`mqtt unusable`) and fails the start.
    func makeMQTTSettings(logger: Logger) throws(ExitCode) -> (MQTTConfiguration, MQTTMirror.Settings)? {
        do {
            return try mqtt.settings(hostName: ProcessInfo.processInfo.hostName)
        } catch {
            logger.log(.mqttUnusable, ["error": "\(error)"])
            throw ExitCode.failure
        }
    }

    /// Runs the services until SIGTERM or SIGINT, then shuts them down in order.
    func runServices(
        _ parts: DaemonServices,
        mqtt mqttSettings: (MQTTConfiguration, MQTTMirror.Settings)?,
        logger: Logger
    ) async throws {
        let services = await makeServices(parts, mqtt: mqttSettings, logger: logger)
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
                "scanning": "\(parts.isScanning)",
                "interfaces": "\(interfaces.joined(separator: ","))",
                "socket": "\(parts.socket)",
            ]
        )
        try await group.run()
        logger.log(.stopped)
    }

    /// The services, in the order they start; they shut down in the reverse one: the server stops taking calls
    /// first, then the scanner applies what is pending and ends the subscriptions, then --dump writes its final line.
    private func makeServices(
        _ parts: DaemonServices,
        mqtt mqttSettings: (MQTTConfiguration, MQTTMirror.Settings)?,
        logger: Logger
    ) async -> [any Service] {
        let systemd = SystemdIntegration(
            notifier: SystemdNotifier(),
            store: parts.store,
            socketServed: parts.socketServed,
            watchdogTimeout: SystemdWatchdog.timeout(),
            logger: logger
        )
        let signals = DaemonSignals(signals: await DaemonSignals.trap(), setScanning: parts.setScanning, logger: logger)
        var services: [any Service] = [systemd, signals, StartupPagesRelease(store: parts.store, delay: .seconds(10))]
        if dump { services.append(DumpService(store: parts.store)) }
        if let (configuration, settings) = mqttSettings {
            let registry = parts.registry
            services.append(
                MQTTService(
                    store: parts.store,
                    configuration: configuration,
                    settings: settings,
                    isRemembered: { registry.remembers($0) },
                    logger: logger,
                    link: parts.mqttLink ?? MQTTLinkState()
                )
            )
        }
        services += [
            RegistryService(
                registry: parts.registry,
                scanner: parts.scanner,
                forgetAfter: .seconds(scanning.forgetAfter),
                bluetoothForgetAfter: parts.bluetoothForgetAfter,
                networkLimit: wifi.networkRowLimit,
                logger: logger
            ),
            parts.alerts, parts.scanner, parts.server,
        ]
        if let probe = parts.probe { services.append(probe) }
        return services
    }
}
