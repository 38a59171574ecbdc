import Foundation

/// The `io.peerscan` Varlink interface: its name, definition and the parameters and replies of its methods, shared
/// by the daemon and its clients.
public enum PeerScanWire {
    /// The interface name.
    public static let interfaceName = "io.peerscan"

    /// The default socket path.
    public static let defaultSocketPath = "/run/peerscan/io.peerscan"

    /// `GetSnapshot()` reply, and `Monitor` without `more`.
    public struct SnapshotReply: Codable, Sendable {
        public var epoch: String
        public var sequence: UInt64
        public var snapshot: ScanSnapshot
        /// Creates a reply.
        public init(epoch: String, sequence: UInt64, snapshot: ScanSnapshot) {
            self.epoch = epoch
            self.sequence = sequence
            self.snapshot = snapshot
        }
    }

    /// `Monitor(epoch:since:)` parameters.
    public struct MonitorParameters: Codable, Sendable {
        public var epoch: String?
        public var since: UInt64?
        /// Creates parameters.
        public init(epoch: String? = nil, since: UInt64? = nil) {
            self.epoch = epoch
            self.since = since
        }

        private enum CodingKeys: String, CodingKey { case epoch, since }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            epoch = try container.decodeIfPresent(String.self, forKey: .epoch)
            // A negative or fractional number is reported by the decoder without a coding path: name it here.
            do {
                since = try container.decodeIfPresent(UInt64.self, forKey: .since)
            } catch {
                throw DecodingError.dataCorruptedError(
                    forKey: .since,
                    in: container,
                    debugDescription: "since must be a sequence number (0 or more)"
                )
            }
        }
    }

    /// One `Monitor` reply: a snapshot (first, or on resync) or a changeset.
    public struct MonitorReply: Codable, Sendable {
        public var epoch: String
        public var sequence: UInt64
        public var snapshot: ScanSnapshot?
        public var changes: ScanChangeset?
        public var resync: Bool?
        /// Creates a reply.
        public init(
            epoch: String,
            sequence: UInt64,
            snapshot: ScanSnapshot? = nil,
            changes: ScanChangeset? = nil,
            resync: Bool? = nil
        ) {
            self.epoch = epoch
            self.sequence = sequence
            self.snapshot = snapshot
            self.changes = changes
            self.resync = resync
        }
    }

    /// `SetScanning(enabled:)` parameters.
    public struct SetScanningParameters: Codable, Sendable {
        public var enabled: Bool
        /// Creates parameters.
        public init(enabled: Bool) { self.enabled = enabled }
    }

    /// `SetScanning` reply.
    public struct SetScanningReply: Codable, Sendable {
        public var sequence: UInt64
        /// Creates a reply.
        public init(sequence: UInt64) { self.sequence = sequence }
    }

    /// The error a caller without the right to switch scanning gets.
    public static let permissionDeniedError = "io.peerscan.PermissionDenied"
}
