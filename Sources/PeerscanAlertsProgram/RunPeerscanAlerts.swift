/// Runs peerscan-alerts with the process's arguments: the `peerscan-alerts` executable and the package's `peerscan`
/// call this.
public func runPeerscanAlerts() async { await PeerscanAlertsCommand.main() }
