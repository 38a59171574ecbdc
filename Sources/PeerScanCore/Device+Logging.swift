import Logging
import PeerScanModel

extension Device {
    /// The fields of a device as log metadata: `id`, `name`, `host`, `mac`, `vendor`, `address` (the first one),
    /// `addresses`, `services` (types). A field the device lacks is left out.
    public var logMetadata: Logger.Metadata {
        var metadata: Logger.Metadata = [
            "id": "\(id)",
            "addresses": "\(addresses.joined(separator: ","))",
        ]
        if let displayName { metadata["name"] = "\(displayName)" }
        if let hostName { metadata["host"] = "\(hostName)" }
        if !macAddresses.isEmpty { metadata["mac"] = "\(macAddresses.joined(separator: ","))" }
        if let vendor { metadata["vendor"] = "\(vendor)" }
        if let first = addresses.first { metadata["address"] = "\(first)" }
        if !services.isEmpty { metadata["services"] = "\(Set(services.map(\.type)).sorted().joined(separator: ","))" }
        return metadata
    }
}
