/// Runs peerscanctl with the process's arguments: the `peerscanctl` executable and the package's `peerscan` call this.
public func runPeerscanctl() async { await Peerscanctl.main() }
