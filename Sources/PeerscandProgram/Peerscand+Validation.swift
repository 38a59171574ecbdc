import ArgumentParser

extension Peerscand {
    /// The checks of option values ArgumentParser runs before ``run()``: a value out of range is a clear error, not a
    /// daemon that starts and misbehaves.
    func validate() throws {
        guard clientQueue >= 1 else { throw ValidationError("--client-queue must be at least 1.") }
        guard maxMessageSize >= 1024 else { throw ValidationError("--max-message-size must be at least 1024.") }
        guard maxConnectionsPerUser >= 1, (maxConnections ?? 1) >= 1 else {
            throw ValidationError("--max-connections and --max-connections-per-user must be at least 1.")
        }
        guard scanning.resyncGrace >= 0 else { throw ValidationError("--resync-grace must not be negative.") }
        guard (0...60).contains(scanning.startupSettle) else {
            throw ValidationError("--startup-settle must be between 0 and 60 seconds.")
        }
        guard scanning.probeInterval == 0 || (1...86400).contains(scanning.probeInterval) else {
            throw ValidationError("--probe-interval must be 0 (off) or between 1 and 86400 seconds.")
        }
        guard (1...100_000).contains(scanning.probeRate) else {
            throw ValidationError("--probe-rate must be between 1 and 100000 datagrams a second.")
        }
        guard scanning.offlineAfter >= 0, scanning.forgetAfter >= 0 else {
            throw ValidationError("--offline-after and --forget-after must not be negative.")
        }
        guard (0...10).contains(scanning.settleWindow) else {
            throw ValidationError("--settle-window must be between 0 and 10 seconds.")
        }
        for type in serviceTypes where !type.hasPrefix("_") || !type.contains("._") {
            throw ValidationError("--service-type \(type): expected a DNS-SD type like _ssh._tcp.")
        }
    }
}
