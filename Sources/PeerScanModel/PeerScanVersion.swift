/// The version of peerscan: one number for the daemon, the client and the benchmarks, which are built together.
public enum PeerScanVersion {
    /// What `peerscand --version` and `peerscanctl --version` print, and what peerscand reports in
    /// `org.varlink.service.GetInfo` and its `starting` log line.
    public static let current = "0.1.0"
}
