import Logging
import PeerScanModel

extension Device {
    /// The fields of a device as log metadata: `id`, `name`, `host`, `addresses`, `services` (types).
    public var logMetadata: Logger.Metadata {
        [
            "id": "\(id)",
            "name": "\(displayName)",
            "host": "\(hostName)",
            "addresses": "\(addresses.joined(separator: ","))",
            "services": "\(Set(services.map(\.type)).sorted().joined(separator: ","))",
        ]
    }
}
