import AsyncPrimitives
import Logging
import MQTTClient
import MonitoringLog
import PeerScanCore
import PeerScanModel
import ServiceLifecycle
import Synchronization

/// Mirrors the snapshot (peerscand's `--mqtt-url`) to an MQTT broker (see ``MQTTMirror``), keeping the connection up by itself.
///
/// It starts once the store's first browse has settled (``SnapshotStore/waitUntilInitialBrowseSettled()``), the
/// snapshot Varlink clients get first too: a restarted daemon compares the broker's retained topics with the devices
/// it has found again, not with an empty snapshot. The store never waits for the broker: this service reads the store's updates from a bounded queue (a resync from
/// the snapshot if it ever falls behind), and the mirror publishes each device from the current snapshot when the
/// broker has room, so a slow or absent broker costs neither the Varlink clients nor memory. At shutdown the status
/// becomes `offline` and the connection ends cleanly.
public struct MQTTService: Service {
    let store: SnapshotStore
    let configuration: MQTTConfiguration
    let settings: MQTTMirror.Settings
    let isRemembered: @Sendable (DeviceID) -> Bool
    let logger: Logger
    /// Whether the broker's connection is up now (peerscand's GetStatistics).
    public let link: MQTTLinkState

    /// Creates the service.
    /// - Parameters:
    ///   - store: The store whose snapshot is mirrored.
    ///   - configuration: The broker and how to connect (its will is set to the status `offline`).
    ///   - settings: The topics and limits of the mirror.
    ///   - isRemembered: Whether the registry remembers a device (see ``MQTTMirror``): its topics stay while the
    ///     snapshot lacks it.
    ///   - logger: Where connections, losses and resyncs are logged.
    ///   - link: Where the connection's state is kept for readers; a new one by default.
    public init(
        store: SnapshotStore,
        configuration: MQTTConfiguration,
        settings: MQTTMirror.Settings,
        isRemembered: @escaping @Sendable (DeviceID) -> Bool = { _ in false },
        logger: Logger,
        link: MQTTLinkState = MQTTLinkState()
    ) {
        self.link = link
        self.store = store
        self.configuration = configuration
        self.settings = settings
        self.isRemembered = isRemembered
        self.logger = logger
    }

    /// The most store updates queued for the mirror before it resyncs from the snapshot.
    static let storeQueueLimit = 4096

    private enum Input: Sendable {
        case store(DrainingQueue<StoreUpdate>.Batch)
        case connection(MQTTEvent)
    }

    public func run() async throws {
        var configuration = self.configuration
        configuration.will = MQTTMirror.offlineMessage(topics: settings.topics)
        // The first snapshot clients get, not an empty one: the broker's retained devices are compared with it.
        await cancelWhenGracefulShutdown { await store.waitUntilInitialBrowseSettled() }
        guard await store.hasInitialBrowseSettled else { return }  // shutting down before it settled
        logger.log(
            .mqttConnecting,
            ["broker": "\(configuration.host):\(configuration.port)", "prefix": "\(settings.topics.prefix)"]
        )
        let connection: MQTTConnection
        do {
            connection = try MQTTConnection(configuration: configuration)
            connection.start()
        } catch {
            logger.log(.mqttUnusable, ["error": "\(error)"])
            throw error
        }
        let subscription = await store.subscribe(limit: Self.storeQueueLimit)
        defer { subscription.cancel() }
        let initial = MQTTMirror(
            settings: settings,
            snapshot: subscription.snapshot,
            sequence: subscription.sequence,
            isRemembered: isRemembered
        )
        let inputs = DrainingQueue<Input>()
        let droppedEvents = await withDiscardingTaskGroup { group in
            group.addTask {
                for await event in connection.events { inputs.push(.connection(event)) }
            }
            group.addTask {
                while let batch = await subscription.updates.nextBatch() { inputs.push(.store(batch)) }
                inputs.finish()  // the store ended its subscriptions: shutting down
            }
            let mirror = await cancelWhenGracefulShutdown {
                await drive(initial, inputs: inputs, connection: connection)
            }
            if mirror.isConnected {
                _ = try? connection.publish(mirror.offlineMessage)
            }
            await connection.stop()
            link.isConnected = false
            subscription.cancel()
            subscription.updates.finish()
            inputs.finish()
            return mirror.droppedEvents
        }
        logger.log(.mqttStopped, ["events.dropped": "\(droppedEvents)"])
        // The store ends its subscriptions when the scanner stops, before this service's turn: wait for it.
        try? await gracefulShutdown()
    }

    /// Feeds the mirror every input and publishes what it asks for, until the inputs end (or the task is cancelled).
    private func drive(
        _ initial: MQTTMirror,
        inputs: DrainingQueue<Input>,
        connection: MQTTConnection
    ) async -> MQTTMirror {
        var mirror = initial
        var failureReported = false
        while let batch = await inputs.nextBatch() {
            for input in batch.elements {
                await handle(input, mirror: &mirror, failureReported: &failureReported, connection: connection)
            }
            publish(mirror.takeMessages(), mirror: &mirror, connection: connection)
        }
        return mirror
    }

    private func handle(
        _ input: Input,
        mirror: inout MQTTMirror,
        failureReported: inout Bool,
        connection: MQTTConnection
    ) async {
        switch input {
        case .store(let batch):
            if batch.dropped > 0 {
                let (snapshot, sequence) = await store.current()
                logger.log(.mqttResync, ["dropped": "\(batch.dropped)"])
                mirror.resync(to: snapshot, sequence: sequence)
            } else {
                for update in batch.elements { mirror.apply(update.changes, sequence: update.sequence) }
            }
        case .connection(.connected(let version)):
            failureReported = false
            logger.log(.mqttConnected, ["protocol": "\(version == 5 ? "5" : "3.1.1")"])
            mirror.connected()
            link.isConnected = true
            for filter in mirror.subscriptions {
                do {
                    try connection.subscribe(filter)
                } catch {
                    logger.log(.mqttSubscribeFailed, ["filter": "\(filter)", "error": "\(error)"])
                }
            }
        case .connection(.disconnected(let reason)):
            if mirror.isConnected {
                logger.log(.mqttDisconnected, ["reason": "\(reason)"])
            } else if !failureReported {
                // Once per outage: the connection retries every few seconds.
                logger.log(.mqttConnectionFailed, ["reason": "\(reason)", "retrying": "true"])
            } else {
                logger.log(.mqttConnectionRetryFailed, ["reason": "\(reason)"])
            }
            failureReported = true
            mirror.disconnected()
            link.isConnected = false
        case .connection(.published(let messageID)):
            mirror.acknowledged(messageID: messageID)
        case .connection(.received(let message)):
            mirror.received(message)
        }
    }

    private func publish(_ messages: [MQTTMessage], mirror: inout MQTTMirror, connection: MQTTConnection) {
        for message in messages {
            do {
                mirror.sent(messageID: try connection.publish(message))
            } catch {
                // Lost the connection meanwhile: its event follows, and the next connection publishes everything.
                logger.log(.mqttPublishFailed, ["topic": "\(message.topic)", "error": "\(error)"])
                return
            }
        }
    }
}

/// Whether the broker's connection is up, shared between ``MQTTService`` (which sets it) and its readers.
public final class MQTTLinkState: Sendable {
    private let connected = Mutex(false)

    /// Not connected.
    public init() {}

    /// Whether the connection is up now.
    public var isConnected: Bool {
        get { connected.withLock { $0 } }
        set { connected.withLock { $0 = newValue } }
    }
}
