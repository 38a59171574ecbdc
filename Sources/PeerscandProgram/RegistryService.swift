import DeviceRegistry
import Foundation
import Logging
import MonitoringLog
import PeerScanCore
import ServiceLifecycle

/// Writes the registry's changes to disk every second, off the changeset path, and forgets the devices not seen for
/// --forget-after, and the Bluetooth devices nobody touched not seen for --bluetooth-forget-after (through the store,
/// so that their keys go too), and the Wi-Fi networks and access points not heard for --forget-after or beyond the
/// `networkLimit` heard most recently (but the evil-twin baseline's), every minute. Writes everything once more at
/// shutdown, after the scanner stopped (it is started before it, so stopped after it).
struct RegistryService: Service {
    let registry: DeviceRegistry
    let scanner: ScanService
    let forgetAfter: Duration
    let bluetoothForgetAfter: Duration
    /// The most Wi-Fi rows kept besides the baseline (from --wifi-networks-max).
    let networkLimit: NetworkRowLimit
    let logger: Logger

    func run() async throws {
        let clock = ContinuousClock()
        var nextForgetting = clock.now + .seconds(60)  // by the clock: a slow flush does not stretch the minute
        while !Task.isShuttingDownGracefully {
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(1)) }
            } catch {
                break
            }
            await registry.flush()
            if clock.now >= nextForgetting {
                nextForgetting = clock.now + .seconds(60)
                let expired = registry.expiredDevices(
                    forgetAfter: forgetAfter,
                    bluetoothForgetAfter: bluetoothForgetAfter
                )
                if !expired.isEmpty {
                    logger.log(.registryForgetting, ["devices": "\(expired.count)"])
                    _ = await scanner.edit { .forget(expired, reply: $0) }
                    registry.remove(expired)  // any the store did not know
                }
                await registry.forgetNetworks(forgetAfter: forgetAfter, limit: networkLimit)
            }
        }
        await registry.flush(refreshingAll: true)
    }
}
