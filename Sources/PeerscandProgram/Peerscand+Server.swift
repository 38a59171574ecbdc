import AsyncPrimitives
import DaemonSupport
import DeviceRegistry
import Foundation
import Logging
import PeerScanCore
import PeerScanModel
import PeerScanServer
import VarlinkServer

/// The making of the Varlink server: io.peerscan's handler over the store, the registry and the scanner, on the socket
/// systemd passed or on --socket, within the connection limits.
extension Peerscand {
    /// The control group's name; `nil` (root only) for an empty --control-group.
    var controlGroupName: String? { controlGroup.isEmpty ? nil : controlGroup }

    /// The listening socket: the one systemd passed (peerscand.socket, socket activation), else --socket bound with
    /// --socket-mode; and how to name it in the log.
    func makeListener() -> (listener: VarlinkServer.Listener, description: String) {
        if let activated = SocketActivation.listeningDescriptors().first(where: SocketActivation.isListeningUnixStream)
        {
            return (.fileDescriptor(activated), "fd \(activated) (socket activation)")
        }
        return (.path(socket, permissions: socketMode.mode), socket)
    }

    /// The Varlink interface io.peerscan: the snapshot and its changesets from `store`, the registry's devices, edits
    /// through `scanner`, GetStatistics from `statistics`, the alerts' methods from `alerts`.
    func makeVarlinkInterface(
        store: SnapshotStore,
        epoch: String,
        history: ChangeHistory,
        registry: DeviceRegistry,
        scanner: ScanService,
        statistics: DaemonStatistics,
        alerts: AlertAccess,
        setScanning: @escaping @Sendable (Bool) async -> UInt64
    ) -> PeerScanInterface {
        PeerScanInterface(
            store: store,
            epoch: epoch,
            history: history,
            controlGroup: controlGroupName,
            clientQueueLimit: clientQueue,
            devices: DeviceAccess(
                knownDevices: { registry.knownDevices() },
                device: { registry.device($0) },
                submit: { scanner.submit($0) }
            ),
            statistics: { statistics.reply(varlinkConnections: $0) },
            alerts: alerts,
            setScanning: setScanning
        )
    }

    /// The alerts' methods over the outbox; a rule set reaches the policy through `inputs`.
    func makeAlertAccess(outbox: AlertOutbox, inputs: DrainingQueue<AlertService.Input>) -> AlertAccess {
        AlertAccess(
            follow: { await outbox.follow($0) },
            stopFollowing: { await outbox.stopFollowing($0) },
            followedDestinations: { await outbox.followedDestinations },
            acknowledge: { id, destination, outcome, answer in
                await outbox.acknowledge(id: id, destination: destination, outcome: outcome, answer: answer)
            },
            sendTest: { destinations, timeout in
                let alert = AlertContent.test.stamped(id: UUID(), created: Date())
                return await outbox.sendTest(alert, to: destinations, timeout: timeout)
            },
            rules: { await outbox.rules.all },
            setRule: { device, events in
                await outbox.setRule(device: device, events: events)
                inputs.push(.rules(await outbox.rules))
            }
        )
    }

    /// The Varlink server of io.peerscan
    /// (``makeVarlinkInterface(store:epoch:history:registry:scanner:statistics:alerts:setScanning:)``) on
    /// ``makeListener()``'s socket;
    /// `served` ends once it accepts connections (for READY=1).
    func makeServer(
        store: SnapshotStore,
        history: ChangeHistory,
        registry: DeviceRegistry,
        scanner: ScanService,
        statistics: DaemonStatistics,
        alerts: AlertAccess,
        setScanning: @escaping @Sendable (Bool) async -> UInt64,
        logger: Logger
    ) -> (server: VarlinkServer, served: AsyncStream<Void>, socket: String) {
        let varlinkInterface = makeVarlinkInterface(
            store: store,
            epoch: history.epoch,
            history: history,
            registry: registry,
            scanner: scanner,
            statistics: statistics,
            alerts: alerts,
            setScanning: setScanning
        )
        let (listener, socketDescription) = makeListener()
        let (served, continuation) = AsyncStream<Void>.makeStream()
        let server = VarlinkServer(
            listener: listener,
            interfaces: [varlinkInterface],
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
                continuation.yield()
                continuation.finish()
            }
        )
        return (server, served, socketDescription)
    }
}
