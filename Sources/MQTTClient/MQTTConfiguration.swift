// Where and how to connect to a broker: the configuration, credentials and TLS settings.

/// Where and how to connect to an MQTT broker.
public struct MQTTConfiguration: Sendable, Equatable {
    /// The broker's host name or address.
    public var host: String
    /// The broker's port (1883 for MQTT, 8883 for MQTT over TLS).
    public var port: Int
    /// The client identifier; the broker holds one connection per identifier.
    public var clientID: String
    /// Seconds between pings while idle; the broker declares the client dead (and publishes its will) after 1.5 times
    /// this without traffic.
    public var keepAlive: Int
    /// The user name and password, if the broker wants them.
    public var credentials: MQTTCredentials?
    /// TLS, if the broker is reached over TLS.
    public var tls: MQTTTLS?
    /// The message the broker publishes when the connection ends without a clean disconnect.
    public var will: MQTTMessage?
    /// The shortest and longest wait before a reconnection attempt; the wait doubles from one to the other.
    public var reconnectDelay: ClosedRange<Duration>

    /// Creates a configuration.
    public init(
        host: String,
        port: Int,
        clientID: String,
        keepAlive: Int = 30,
        credentials: MQTTCredentials? = nil,
        tls: MQTTTLS? = nil,
        will: MQTTMessage? = nil,
        reconnectDelay: ClosedRange<Duration> = .milliseconds(250) ... .seconds(4)
    ) {
        self.host = host
        self.port = port
        self.clientID = clientID
        self.keepAlive = keepAlive
        self.credentials = credentials
        self.tls = tls
        self.will = will
        self.reconnectDelay = reconnectDelay
    }
}

/// A broker's user name and password.
public struct MQTTCredentials: Sendable, Equatable {
    /// The user name.
    public var username: String
    /// The password, if any.
    public var password: String?

    /// Creates credentials.
    public init(username: String, password: String?) {
        self.username = username
        self.password = password
    }
}

/// TLS settings: the certificate authorities the broker's certificate is checked against, and an optional client
/// certificate.
public struct MQTTTLS: Sendable, Equatable {
    /// A PEM file of trusted certificate authorities; `nil` for the system's (`/etc/ssl/certs`).
    public var caFile: String?
    /// A PEM client certificate, if the broker authenticates clients by certificate.
    public var certificateFile: String?
    /// The client certificate's PEM private key.
    public var keyFile: String?

    /// Creates TLS settings.
    public init(caFile: String? = nil, certificateFile: String? = nil, keyFile: String? = nil) {
        self.caFile = caFile
        self.certificateFile = certificateFile
        self.keyFile = keyFile
    }
}
