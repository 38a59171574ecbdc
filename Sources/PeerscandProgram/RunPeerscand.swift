/// Runs peerscand with the process's arguments: the `peerscand` executable and the package's `peerscan` call this.
public func runPeerscand() async { await Peerscand.main() }
