import ArgumentParser
import Foundation
import MQTTClient
import PeerScanMQTT

/// The `--mqtt-*` options: where to mirror the snapshot, if anywhere.
struct MQTTOptions: ParsableArguments {
    @Option(
        name: .customLong("mqtt-url"),
        help: ArgumentHelp(
            "Publish every device to this MQTT broker: mqtt://HOST[:PORT] or mqtts://HOST[:PORT] (TLS).",
            discussion: """
                Off unless given. Topics under --mqtt-topic-prefix: status (retained: online, or offline as the \
                last will), devices/ID (retained: the device as in the snapshot; deleted when it goes), and events \
                (not retained: a snapshot at each connection, then one message per changeset). The connection is \
                kept up with backoff (0.25 s doubling to 4 s); after each reconnection the whole state is published again.
                """,
            valueName: "url"
        )
    )
    var url: String?

    @Option(
        name: .customLong("mqtt-topic-prefix"),
        help: ArgumentHelp("The prefix of the topics (default: peerscan/HOSTNAME).", valueName: "prefix")
    )
    var topicPrefix: String?

    @Option(
        name: .customLong("mqtt-credentials"),
        help: ArgumentHelp(
            "A file with the broker's user name on its first line and the password on its second.",
            discussion: """
                Default: $CREDENTIALS_DIRECTORY/mqtt when present (systemd's LoadCredential=mqtt:PATH). Never \
                pass secrets on the command line.
                """,
            valueName: "file"
        )
    )
    var credentials: String?

    @Option(
        name: .customLong("mqtt-ca-file"),
        help: ArgumentHelp("With mqtts://: the PEM certificate authorities (default: the system's).", valueName: "file")
    )
    var caFile: String?

    @Option(
        name: .customLong("mqtt-certificate"),
        help: ArgumentHelp("With mqtts://: a PEM client certificate (with --mqtt-key).", valueName: "file")
    )
    var certificate: String?

    @Option(
        name: .customLong("mqtt-key"),
        help: ArgumentHelp("With mqtts://: the client certificate's PEM private key.", valueName: "file")
    )
    var key: String?

    @Option(
        name: .customLong("mqtt-keepalive"),
        help: ArgumentHelp(
            "Seconds between pings; the broker declares this scanner offline after 1.5 times as long in silence.",
            valueName: "seconds"
        )
    )
    var keepAlive = 30

    @Flag(
        name: .customLong("mqtt-home-assistant"),
        help: "Also publish Home Assistant discovery configs: one device_tracker per device."
    )
    var homeAssistant = false

    @Option(
        name: .customLong("mqtt-discovery-prefix"),
        help: ArgumentHelp("Home Assistant's discovery prefix.", valueName: "prefix")
    )
    var discoveryPrefix = "homeassistant"

    func validate() throws {
        guard let url else {
            guard topicPrefix == nil, credentials == nil, caFile == nil, certificate == nil, key == nil,
                !homeAssistant
            else { throw ValidationError("The --mqtt-* options need --mqtt-url.") }
            return
        }
        let broker: MQTTBrokerURL
        do {
            broker = try MQTTBrokerURL(url)
        } catch {
            throw ValidationError(error.description)
        }
        if !broker.usesTLS, caFile != nil || certificate != nil || key != nil {
            throw ValidationError("--mqtt-ca-file, --mqtt-certificate and --mqtt-key need an mqtts:// URL.")
        }
        if (certificate == nil) != (key == nil) {
            throw ValidationError("--mqtt-certificate and --mqtt-key go together.")
        }
        if let prefix = topicPrefix, prefix.isEmpty || prefix.contains(where: { "+#\0".contains($0) }) {
            throw ValidationError("--mqtt-topic-prefix \(prefix): expected a topic without wildcards.")
        }
        guard (5...3600).contains(keepAlive) else {
            throw ValidationError("--mqtt-keepalive must be between 5 and 3600 seconds.")
        }
    }

    /// The connection and mirror settings, or `nil` when MQTT is off.
    func settings(hostName: String) throws -> (MQTTConfiguration, MQTTMirror.Settings)? {
        guard let url else { return nil }
        let broker = try MQTTBrokerURL(url)
        var credentialsFile = credentials
        if credentialsFile == nil, let directory = ProcessInfo.processInfo.environment["CREDENTIALS_DIRECTORY"] {
            let path = directory + "/mqtt"
            if FileManager.default.fileExists(atPath: path) { credentialsFile = path }
        }
        let topics = MQTTTopics(prefix: topicPrefix, hostName: hostName, discoveryPrefix: discoveryPrefix)
        let configuration = MQTTConfiguration(
            host: broker.host,
            port: broker.port,
            clientID: topics.clientID,
            keepAlive: keepAlive,
            credentials: try credentialsFile.map { try MQTTCredentials(contentsOf: $0) },
            tls: broker.usesTLS ? MQTTTLS(caFile: caFile, certificateFile: certificate, keyFile: key) : nil
        )
        return (configuration, MQTTMirror.Settings(topics: topics, homeAssistant: homeAssistant))
    }
}
