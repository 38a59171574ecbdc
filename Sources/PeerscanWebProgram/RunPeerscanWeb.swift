/// Runs peerscan-web with the process's arguments: the `peerscan-web` executable and the package's `peerscan` call
/// this.
public func runPeerscanWeb() async { await PeerscanWebCommand.main() }
