import Foundation
import MQTTClient

/// Why an MQTT setting is unusable.
public enum MQTTSettingError: Error, Equatable, CustomStringConvertible {
    /// `--mqtt-url` is not `mqtt://host[:port]` or `mqtts://host[:port]`.
    case invalidURL(String)
    /// The credentials file cannot be read or has no user name.
    case unreadableCredentials(path: String, reason: String)

    public var description: String {
        switch self {
        case .invalidURL(let url):
            "--mqtt-url \(url): expected mqtt://HOST[:PORT] or mqtts://HOST[:PORT] (TLS)"
        case .unreadableCredentials(let path, let reason):
            "MQTT credentials \(path): \(reason)"
        }
    }
}

/// A broker's address from a URL: `mqtt://host[:port]` (port 1883) or `mqtts://host[:port]` (TLS, port 8883).
public struct MQTTBrokerURL: Sendable, Equatable {
    /// The host name or address (IPv6 without brackets).
    public var host: String
    /// The port.
    public var port: Int
    /// Whether the connection uses TLS.
    public var usesTLS: Bool

    /// Creates a broker address.
    public init(host: String, port: Int, usesTLS: Bool) {
        self.host = host
        self.port = port
        self.usesTLS = usesTLS
    }

    /// Parses a URL.
    /// - Throws: ``MQTTSettingError/invalidURL(_:)`` for another scheme, a path, a user, or no host.
    public init(_ text: String) throws(MQTTSettingError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "mqtt" || scheme == "mqtts", let host = components.host, !host.isEmpty,
            components.path.isEmpty || components.path == "/", components.user == nil, components.password == nil,
            components.query == nil
        else { throw .invalidURL(text) }
        usesTLS = scheme == "mqtts"
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        port = components.port ?? (usesTLS ? 8883 : 1883)
        guard (1...65535).contains(port) else { throw .invalidURL(text) }
    }
}

extension MQTTCredentials {
    /// Reads credentials from a file: the user name on its first line, the password on its second (optional).
    /// Such a file is what systemd's `LoadCredential=` hands over, so that no secret is on a command line.
    public init(contentsOf path: String) throws(MQTTSettingError) {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw .unreadableCredentials(path: path, reason: (error as NSError).localizedDescription)
        }
        // "\r\n" is one Character: a file written on Windows splits as well.
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map(String.init)
        guard let username = lines.first, !username.isEmpty else {
            throw .unreadableCredentials(path: path, reason: "no user name on its first line")
        }
        self.init(username: username, password: lines.count > 1 && !lines[1].isEmpty ? lines[1] : nil)
    }
}
