/// The version of peerscan: one number for the daemon, the client, the benchmarks and the Debian package. Its source is
/// debian/changelog's first entry; this copy must equal it (VersionTests and scripts/check-version check that).
public enum PeerScanVersion {
    /// What `peerscand --version` and `peerscanctl --version` print, and what peerscand reports in
    /// `org.varlink.service.GetInfo` and its `starting` log line.
    public static let current = "0.1.0"
}
