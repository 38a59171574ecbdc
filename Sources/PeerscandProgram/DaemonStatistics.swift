import DaemonSupport
import DeviceRegistry
import PeerScanCore
import PeerScanMQTT
import PeerScanModel
import Probing

/// GetStatistics's figures, each read where it lives: the scanner's counted log lines, the probe service's round
/// durations, the MQTT mirror's connection, the alerts' outcomes, this process's `/proc/self`; the server adds its
/// open connections.
struct DaemonStatistics: Sendable {
    /// The scanner, whose log lines are counted.
    let scanner: ScanService
    /// The probe service, if the daemon probes.
    let probe: ProbeService?
    /// The MQTT mirror's connection state, if a broker is configured.
    let mqttLink: MQTTLinkState?
    /// The alerts' outcomes, counted by the outbox.
    let alerts: AlertOutcomeCounts

    /// The reply, with `varlinkConnections` connections open now.
    func reply(varlinkConnections: Int) -> PeerScanWire.StatisticsReply {
        let events = scanner.loggedEvents.current
        return PeerScanWire.StatisticsReply(
            probeRoundDurations: probe.map {
                let durations = $0.roundDurations
                return PeerScanWire.Histogram(
                    bounds: RoundDurations.bounds,
                    counts: durations.cumulativeCounts,
                    sum: durations.sum,
                    count: durations.count
                )
            },
            addressConflicts: events.addressConflicts,
            evilTwinWarnings: events.evilTwinWarnings,
            clients: PeerScanWire.ClientCounts(varlink: varlinkConnections, mqtt: mqttLink?.isConnected),
            process: ProcessFigures.current().map {
                PeerScanWire.ProcessStatistics(
                    residentBytes: $0.residentBytes,
                    cpuSeconds: $0.cpuSeconds,
                    openDescriptors: $0.openDescriptors,
                    maximumDescriptors: $0.maximumDescriptors,
                    startTime: $0.startTime
                )
            },
            alerts: alerts.current.map {
                PeerScanWire.AlertOutcomeCount(
                    destination: $0.destination,
                    outcome: $0.outcome.rawValue,
                    count: $0.count
                )
            }
        )
    }
}
