import Diffable
import Foundation
import NIOCore
import PeerScanModel
import Varlink

/// A failure of a peerscanctl command: what to tell the user and the exit status to end with.
///
/// Every error a command can meet is turned into one of these by ``init(_:socketPath:)``, so that the message is
/// actionable and the exit status tells a script what went wrong (the codes are those of BSD's `sysexits.h`):
///
/// | status | meaning |
/// |---:|---|
/// | 69 (`EX_UNAVAILABLE`) | peerscand is not running, or the connection to it failed or was lost |
/// | 76 (`EX_PROTOCOL`) | peerscand does not speak `io.peerscan` as this client does: interface or method missing, an undecodable reply, a changeset that does not apply |
/// | 77 (`EX_NOPERM`) | permission denied: connecting to the socket, or switching scanning |
/// | 1 | anything else |
///
/// Usage errors end with 64 (`EX_USAGE`); swift-argument-parser reports those itself.
public struct ClientFailure: Error, Hashable, Sendable, CustomStringConvertible {
    /// An exit status, as `sysexits.h` numbers them.
    public struct ExitStatus: Hashable, Sendable, CustomStringConvertible {
        /// The number the process exits with.
        public var rawValue: Int32

        /// Creates a status.
        public init(_ rawValue: Int32) { self.rawValue = rawValue }

        /// 1: a failure that fits no other status.
        public static let failure = ExitStatus(1)
        /// 64 (`EX_USAGE`): the command line is wrong.
        public static let usage = ExitStatus(64)
        /// 69 (`EX_UNAVAILABLE`): peerscand is not running, or the connection failed.
        public static let unavailable = ExitStatus(69)
        /// 76 (`EX_PROTOCOL`): peerscand's replies do not follow `io.peerscan` as this client knows it.
        public static let protocolMismatch = ExitStatus(76)
        /// 77 (`EX_NOPERM`): the user may not do this.
        public static let permissionDenied = ExitStatus(77)

        public var description: String { "\(rawValue)" }
    }

    /// The exit status.
    public var status: ExitStatus
    /// What went wrong and how to fix it, for standard error; it may span several lines.
    public var message: String

    /// Creates a failure.
    public init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    public var description: String { message }

    /// The lines to write on standard error: `peerscanctl: ` and each line of the message, control characters
    /// escaped (``TerminalText/escapingControlCharacters(_:)``: a message may quote what peerscand or a device sent).
    public var errorLines: [String] {
        message.split(separator: "\n").map { "peerscanctl: " + TerminalText.escapingControlCharacters(String($0)) }
    }

    /// The failure to report for an error met while talking to peerscand at `socketPath`.
    ///
    /// - Parameters:
    ///   - error: What was thrown.
    ///   - socketPath: The socket the command used, named in the message.
    public init(_ error: any Error, socketPath: String) {
        switch error {
        case let failure as ClientFailure:
            self = failure
        case let error as VarlinkConnectError:
            self = Self.connectFailure(error, socketPath: socketPath)
        case let error as VarlinkError:
            self = Self.errorReply(error, socketPath: socketPath)
        case VarlinkProtocolError.connectionClosed:
            self.init(
                .unavailable,
                "peerscand closed the connection on \(socketPath) before it answered (was it stopped or restarted?)"
            )
        case let error as VarlinkProtocolError:
            self = Self.protocolMismatch("a malformed reply (\(error))", socketPath: socketPath)
        case let error as ChangesetError:
            self = Self.protocolMismatch(
                "a changeset that does not apply to its snapshot (\(error))",
                socketPath: socketPath
            )
        case let error as DecodingError:
            self = Self.protocolMismatch("an undecodable reply (\(Self.describe(error)))", socketPath: socketPath)
        case let error as IOError:
            self.init(.unavailable, "the connection to peerscand on \(socketPath) failed: \(error)")
        default:
            self.init(.failure, "\(error)")
        }
    }

    private static func connectFailure(_ error: VarlinkConnectError, socketPath: String) -> ClientFailure {
        switch error {
        case .notListening(let path):
            return ClientFailure(
                .unavailable,
                """
                peerscand is not running (nothing listening on \(path)). Start it: systemctl start peerscand.socket
                If it listens elsewhere, give its socket with --socket or PEERSCAN_SOCKET.
                """
            )
        case .permissionDenied(let path):
            return ClientFailure(
                .permissionDenied,
                """
                permission denied connecting to \(path). Check the permissions of the socket and its directory \
                (ls -l \(path)); run as root or as a user allowed to connect (peerscand --socket-mode sets them)
                """
            )
        case .failed(let path, let reason):
            return ClientFailure(.unavailable, "cannot connect to peerscand on \(path): \(reason)")
        }
    }

    /// The failure for an error reply. Its parameters are quoted escaped: a reason may name a device by a key a
    /// device published (`host:NAME`).
    private static func errorReply(_ error: VarlinkError, socketPath: String) -> ClientFailure {
        func parameter(_ name: String) -> String? {
            error.parameters[name].map(TerminalText.escapingControlCharacters)
        }
        switch error.name {
        case PeerScanWire.permissionDeniedError, VarlinkError.permissionDenied.name:
            let reason = parameter("reason") ?? "peerscand refused"
            let advice =
                switch controlGroup(in: reason) {
                case "root": "Run it as root."
                case let group?:
                    "Run it as root, or add yourself to group \(group) (sudo usermod -aG \(group) $USER) and log in again."
                case nil:
                    """
                    Run it as root, or add yourself to peerscand's control group (group peerscan unless its \
                    --control-group says otherwise: sudo usermod -aG peerscan $USER) and log in again.
                    """
                }
            return ClientFailure(.permissionDenied, "permission denied: \(reason).\n\(advice)")
        case PeerScanWire.deviceNotFoundError:
            return ClientFailure(
                .failure,
                "peerscand knows no device \(parameter("id") ?? "with that id") (list them: peerscanctl known)"
            )
        case PeerScanWire.cannotMergeError:
            return ClientFailure(.failure, "cannot merge: \(parameter("reason") ?? "refused")")
        case PeerScanWire.cannotSplitError:
            return ClientFailure(.failure, "cannot split: \(parameter("reason") ?? "refused")")
        case PeerScanWire.wifiNetworkNotFoundError:
            let reason = parameter("reason") ?? "no such Wi-Fi network"
            return ClientFailure(.failure, "\(reason) (see: peerscanctl list, peerscanctl wifi known)")
        case PeerScanWire.noAlertSenderError:
            return ClientFailure(
                .unavailable,
                "no alert sender: \(parameter("reason") ?? "none follows the alerts") (is peerscan-alerts running?)"
            )
        case PeerScanWire.unknownDestinationError:
            return ClientFailure(
                .usage,
                "the alert sender has no destination \(parameter("destination") ?? "of that name") (see: peerscanctl notify test)"
            )
        case "org.varlink.service.InvalidParameter" where error.parameters["parameter"] == "events":
            let events = AlertEvent.allCases.filter { $0 != .test }.map(\.rawValue).joined(separator: ", ")
            return ClientFailure(.usage, "not an alert event (one of: \(events))")
        case PeerScanWire.invalidIRKError:
            return ClientFailure(.usage, "not an IRK: \(parameter("reason") ?? "32 hex digits expected")")
        case "org.varlink.service.InvalidParameter" where error.parameters["parameter"] == "key":
            return ClientFailure(.usage, "not a MAC address or host name (see: peerscanctl show DEVICE)")
        case "org.varlink.service.InterfaceNotFound":
            return protocolMismatch(
                "no interface \(parameter("interface") ?? PeerScanWire.interfaceName)",
                socketPath: socketPath
            )
        case "org.varlink.service.MethodNotFound", "org.varlink.service.MethodNotImplemented":
            return protocolMismatch("no method \(parameter("method") ?? "(unnamed)")", socketPath: socketPath)
        default:
            return protocolMismatch(
                "the error reply \(TerminalText.escapingControlCharacters("\(error)"))",
                socketPath: socketPath
            )
        }
    }

    private static func protocolMismatch(_ what: String, socketPath: String) -> ClientFailure {
        ClientFailure(
            .protocolMismatch,
            """
            protocol mismatch: the server on \(socketPath) answered with \(what). Is it peerscand, of the same \
            version as this peerscanctl?
            """
        )
    }

    /// What a decoding error says, with where: `missing "epoch"`, `snapshot.sections[0].items[1].kind: Unknown
    /// item kind "printer".`
    static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            keys.enumerated().map { index, key in
                if let index = key.intValue { return "[\(index)]" }
                return index == 0 ? key.stringValue : ".\(key.stringValue)"
            }.joined()
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "missing \"\(path(context.codingPath + [key]))\""
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return context.codingPath.isEmpty
                ? context.debugDescription : "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }

    /// The group named at the end of peerscand's refusal ("… membership of group peerscan").
    private static func controlGroup(in reason: String) -> String? {
        guard let range = reason.range(of: "group ", options: .backwards) else { return nil }
        let name = reason[range.upperBound...].prefix { !$0.isWhitespace && $0 != "." && $0 != "," && $0 != ")" }
        return name.isEmpty ? nil : String(name)
    }
}
