import Foundation
import PeerScanModel
import Varlink

/// A connection to peerscand: the methods of `io.peerscan`, with their replies decoded.
///
/// ```swift
/// let reply = try await PeerScanConnection.withConnection(to: path) { try await $0.snapshot() }
/// ```
/// Replies are decoded straight from the parameters' bytes as received, and keep those bytes (``Received/json``), so
/// that `--json` prints exactly what peerscand sent, fields this client does not know included.
public struct PeerScanConnection {
    /// A reply: decoded, and as received.
    public struct Received<Reply> {
        /// The reply's parameters, decoded.
        public var reply: Reply
        /// The reply's parameters as received: one JSON object.
        public var json: Data

        /// Decodes `json`.
        /// - Throws: `DecodingError` if the parameters are not a `Reply`.
        init(json: Data) throws where Reply: Decodable {
            self.reply = try JSONDecoder().decode(Reply.self, from: json)
            self.json = json
        }
    }

    private let connection: VarlinkClientConnection

    /// Connects to peerscand, runs `body` with the connection, and closes it.
    ///
    /// - Parameters:
    ///   - path: The socket path.
    ///   - body: What to do with the connection.
    /// - Returns: What `body` returns.
    /// - Throws: `VarlinkConnectError` if peerscand cannot be reached; whatever `body` throws.
    public static func withConnection<Result: Sendable>(
        to path: String,
        _ body: (PeerScanConnection) async throws -> Result
    ) async throws -> Result {
        try await VarlinkClientConnection.withConnection(to: path) { connection in
            try await body(PeerScanConnection(connection: connection))
        }
    }

    /// Calls `GetSnapshot`.
    ///
    /// - Returns: The current snapshot, its epoch and sequence.
    /// - Throws: `VarlinkError` for an error reply; `VarlinkProtocolError` or `DecodingError` for a reply that is not
    ///   a `GetSnapshot` reply.
    public func snapshot() async throws -> Received<PeerScanWire.SnapshotReply> {
        try Received(json: try await connection.call(method("GetSnapshot")).rawParameters)
    }

    /// Calls `GetStatistics`: what only peerscand knows (probe rounds, counted events, clients, its process).
    ///
    /// - Throws: `VarlinkError` for an error reply (`org.varlink.service.MethodNotFound` from an older peerscand);
    ///   `VarlinkProtocolError` or `DecodingError` for a malformed reply.
    public func statistics() async throws -> PeerScanWire.StatisticsReply {
        try await connection.call(method("GetStatistics"), as: PeerScanWire.StatisticsReply.self)
    }

    /// Calls `SetScanning`.
    ///
    /// - Parameter enabled: Whether scanning should be on.
    /// - Returns: The sequence at which the switch is in the snapshot.
    /// - Throws: `VarlinkError` (`io.peerscan.PermissionDenied` for a caller without the right); `VarlinkProtocolError`
    ///   or `DecodingError` for a malformed reply.
    public func setScanning(_ enabled: Bool) async throws -> UInt64 {
        try await connection.call(
            method("SetScanning"),
            PeerScanWire.SetScanningParameters(enabled: enabled),
            as: PeerScanWire.SetScanningReply.self
        ).sequence
    }

    /// Calls `ListKnownDevices`: every device peerscand remembers, present or not, most recently seen first.
    ///
    /// - Throws: `VarlinkError` for an error reply; `VarlinkProtocolError` or `DecodingError` for a malformed reply.
    public func knownDevices() async throws -> Received<PeerScanWire.ListKnownDevicesReply> {
        try Received(json: try await connection.call(method("ListKnownDevices")).rawParameters)
    }

    /// Calls `GetDevice`: one device's history, and its item if it is in the snapshot.
    ///
    /// - Throws: `VarlinkError` (`io.peerscan.DeviceNotFound` for an unknown id); `VarlinkProtocolError` or
    ///   `DecodingError` for a malformed reply.
    public func device(_ id: DeviceID) async throws -> Received<PeerScanWire.GetDeviceReply> {
        try Received(
            json: try await connection.call(
                method("GetDevice"),
                PeerScanWire.DeviceParameters(id: id.description)
            ).rawParameters
        )
    }

    /// Calls `ForgetDevice`.
    ///
    /// - Throws: `VarlinkError` (`io.peerscan.PermissionDenied`, `io.peerscan.DeviceNotFound`).
    public func forget(_ id: DeviceID) async throws {
        _ = try await connection.call(method("ForgetDevice"), PeerScanWire.DeviceParameters(id: id.description))
    }

    /// Calls `SetDeviceLabel`: applies `edit` to the device's label.
    ///
    /// - Returns: The label as it is now.
    /// - Throws: `VarlinkError` (`io.peerscan.PermissionDenied`, `io.peerscan.DeviceNotFound`); `VarlinkProtocolError`
    ///   or `DecodingError` for a malformed reply.
    public func setLabel(_ edit: DeviceLabelEdit, of id: DeviceID) async throws -> PeerScanWire.SetDeviceLabelReply {
        try await connection.call(
            method("SetDeviceLabel"),
            PeerScanWire.SetDeviceLabelParameters(
                id: id.description,
                name: edit.name,
                note: edit.note,
                important: edit.isImportant
            ),
            as: PeerScanWire.SetDeviceLabelReply.self
        )
    }

    /// Calls `MergeDevices`: the devices `others` are `id`'s from now on.
    ///
    /// - Throws: `VarlinkError` (`io.peerscan.PermissionDenied`, `io.peerscan.DeviceNotFound`,
    ///   `io.peerscan.CannotMerge`).
    public func merge(_ others: [DeviceID], into id: DeviceID) async throws {
        _ = try await connection.call(
            method("MergeDevices"),
            PeerScanWire.MergeDevicesParameters(id: id.description, others: others.map(\.description))
        )
    }

    /// Calls `SplitDevice`: `key` (as the user typed it) leaves the device `id` for a device of its own.
    ///
    /// - Returns: The key's new device.
    /// - Throws: `VarlinkError` (`io.peerscan.PermissionDenied`, `io.peerscan.DeviceNotFound`,
    ///   `io.peerscan.CannotSplit`, `org.varlink.service.InvalidParameter` for a key that is no key).
    public func split(_ key: String, from id: DeviceID) async throws -> String {
        try await connection.call(
            method("SplitDevice"),
            PeerScanWire.SplitDeviceParameters(id: id.description, key: key),
            as: PeerScanWire.SplitDeviceReply.self
        ).id
    }

    /// Calls `SetDeviceIRK`: binds a Bluetooth IRK (32 hex digits) to the device, or removes its key (`nil`).
    /// - Throws: The reply's error (`io.peerscan.InvalidIRK`, `io.peerscan.DeviceNotFound`, `PermissionDenied`).
    public func setIRK(_ irk: IdentityResolvingKey?, of id: DeviceID) async throws {
        _ = try await connection.call(
            method("SetDeviceIRK"),
            PeerScanWire.SetDeviceIRKParameters(id: id.description, irk: irk?.hexDigits),
            as: PeerScanWire.SetDeviceIRKReply.self
        )
    }

    /// Calls `ListKnownWiFiNetworks`: the Wi-Fi evil-twin baseline.
    ///
    /// - Throws: `VarlinkError` for an error reply; `VarlinkProtocolError` or `DecodingError` for a malformed reply.
    public func knownWiFiNetworks() async throws -> Received<PeerScanWire.KnownWiFiNetworksReply> {
        try Received(json: try await connection.call(method("ListKnownWiFiNetworks")).rawParameters)
    }

    /// Calls `TrustWiFiNetwork`: the networks of `ssid` listed now (of `security` only, if given) become known.
    ///
    /// - Returns: The SSID's known networks now.
    /// - Throws: `VarlinkError` (`io.peerscan.PermissionDenied`, `io.peerscan.WiFiNetworkNotFound`);
    ///   `VarlinkProtocolError` or `DecodingError` for a malformed reply.
    public func trustWiFiNetwork(
        _ ssid: String,
        security: WiFiSecurity?
    ) async throws -> Received<PeerScanWire.KnownWiFiNetworksReply> {
        try Received(
            json: try await connection.call(
                method("TrustWiFiNetwork"),
                PeerScanWire.TrustWiFiNetworkParameters(ssid: ssid, security: security?.rawValue)
            ).rawParameters
        )
    }

    /// Calls `UntrustWiFiNetwork`: every network of `ssid` is unknown again.
    ///
    /// - Throws: `VarlinkError` (`io.peerscan.PermissionDenied`, `io.peerscan.WiFiNetworkNotFound`).
    public func untrustWiFiNetwork(_ ssid: String) async throws {
        _ = try await connection.call(
            method("UntrustWiFiNetwork"),
            PeerScanWire.UntrustWiFiNetworkParameters(ssid: ssid),
            as: PeerScanWire.UntrustWiFiNetworkReply.self
        )
    }

    /// Calls `Monitor` with `more` and hands each reply to `body`, until `body` returns `false` or peerscand ends the
    /// call.
    ///
    /// - Parameters:
    ///   - parameters: Where to resume from, if anywhere.
    ///   - body: Handles one reply; returns whether to go on.
    /// - Throws: `VarlinkError` for an error reply; `VarlinkProtocolError` for a malformed reply or a closed
    ///   connection; `DecodingError` for a reply that is not a `Monitor` reply; whatever `body` throws.
    public func monitor(
        _ parameters: PeerScanWire.MonitorParameters,
        _ body: (Received<PeerScanWire.MonitorReply>) async throws -> Bool
    ) async throws {
        try await connection.callMore(method("Monitor"), parameters) { reply in
            try await body(try Received(json: reply.rawParameters))
        }
    }

    /// Calls a method of `io.peerscan` with `parameters` and returns its reply's parameters as received, undecoded:
    /// for a client that passes JSON through (peerscan-web) and must not drop fields it does not know.
    ///
    /// - Parameters:
    ///   - name: The method's name without the interface (`SetDeviceLabel`).
    ///   - parameters: The parameters, encoded as a JSON object.
    /// - Throws: `VarlinkError` for an error reply; `VarlinkProtocolError` for a malformed reply or a closed connection.
    public func callPassingJSON(_ name: String, _ parameters: some Encodable) async throws -> Data {
        try await connection.call(method(name), parameters).rawParameters
    }

    /// Calls a method of `io.peerscan` with `more` and hands each reply's parameters, as received, to `body`, until
    /// `body` returns `false` or peerscand ends the call: for a client with its own types for a method (peerscan-alerts'
    /// `FollowAlerts`).
    ///
    /// - Throws: `VarlinkError` for an error reply; `VarlinkProtocolError` for a malformed reply or a closed
    ///   connection; whatever `body` throws.
    public func callMorePassingJSON(
        _ name: String,
        _ parameters: some Encodable,
        _ body: (Data) async throws -> Bool
    ) async throws {
        try await connection.callMore(method(name), parameters) { reply in try await body(reply.rawParameters) }
    }

    /// Calls `Monitor` with `more` and hands each reply's parameters, as received, to `body`, until `body` returns
    /// `false` or peerscand ends the call: ``monitor(_:_:)`` without decoding.
    ///
    /// - Throws: `VarlinkError` for an error reply; `VarlinkProtocolError` for a malformed reply or a closed
    ///   connection; whatever `body` throws.
    public func monitorPassingJSON(
        _ parameters: PeerScanWire.MonitorParameters,
        _ body: (Data) async throws -> Bool
    ) async throws {
        try await connection.callMore(method("Monitor"), parameters) { reply in try await body(reply.rawParameters) }
    }

    private func method(_ name: String) -> String { "\(PeerScanWire.interfaceName).\(name)" }

    /// Calls `ListAlertRules`: the alert rules a person set, the default first.
    ///
    /// - Throws: `VarlinkError` (`io.peerscan.PermissionDenied`).
    public func alertRules() async throws -> [PeerScanWire.AlertRule] {
        try await connection.call(method("ListAlertRules"), as: PeerScanWire.ListAlertRulesReply.self).rules
    }

    /// Calls `SetAlertRule`: `events` alert for `device` (`nil`: the default rule); `events` `nil` removes the rule.
    ///
    /// - Throws: `VarlinkError` (`io.peerscan.PermissionDenied`, `InvalidParameter` for an unknown event).
    public func setAlertRule(device: DeviceID?, events: [String]?) async throws {
        _ = try await connection.call(
            method("SetAlertRule"),
            PeerScanWire.SetAlertRuleParameters(device: device?.description, events: events),
            as: PeerScanWire.EmptyReply.self
        )
    }

    /// Calls `SendTestAlert`: a test alert for `destination` (every one the sender follows when `nil`), waiting up
    /// to `timeout` seconds for the answers.
    ///
    /// - Throws: `VarlinkError` (`io.peerscan.NoAlertSender`, `io.peerscan.UnknownDestination`,
    ///   `io.peerscan.PermissionDenied`).
    public func sendTestAlert(destination: String?, timeout: Int?) async throws -> [PeerScanWire.AlertTestResult] {
        try await connection.call(
            method("SendTestAlert"),
            PeerScanWire.SendTestAlertParameters(destination: destination, timeout: timeout),
            as: PeerScanWire.SendTestAlertReply.self
        ).results
    }
}

extension PeerScanConnection.Received: Sendable where Reply: Sendable {}
