import PeerScanModel

/// What `peerscanctl scanning` prints: `scanning on (sequence 42)`.
public enum ScanningStatus {
    /// The line for a switch at a sequence.
    public static func line(isEnabled: Bool, sequence: UInt64) -> String {
        "scanning \(isEnabled ? "on" : "off") (sequence \(sequence))"
    }

    /// The line for the scanning item of a `GetSnapshot` reply.
    ///
    /// - Throws: ``ClientFailure`` with status 76 if the snapshot has no scanning item.
    public static func line(for reply: PeerScanWire.SnapshotReply) throws -> String {
        guard case .scanning(let enabled)? = reply.snapshot.item(withIdentifier: DeviceID.scanning) else {
            throw ClientFailure(
                .protocolMismatch,
                "protocol mismatch: peerscand's snapshot has no scanning item. Is it of the same version as peerscanctl?"
            )
        }
        return line(isEnabled: enabled, sequence: reply.sequence)
    }
}
