// The hosts the mDNS host table derives from its rows and address records.

import Discovery
import PeerScanModel

/// An mDNS host as its records announce it: what the device table derives its device from. It has no identifier:
/// the device table gives devices theirs.
public struct AnnouncedHost: Hashable, Sendable {
    /// The canonical host name.
    public var hostName: String
    /// The instance name most of its services share, or the host name's first label (the host table always gives
    /// one).
    public var displayName: String?
    /// Its addresses (from its rows and address records), in ``AddressOrder``.
    public var addresses: [String]
    /// The interfaces its rows were found on, sorted.
    public var interfaces: [String]
    /// One per service (the latest resolved row of each), sorted by service.
    public var services: [DeviceService]

    /// Creates a host.
    public init(
        hostName: String,
        displayName: String?,
        addresses: [String],
        interfaces: [String],
        services: [DeviceService]
    ) {
        self.hostName = hostName
        self.displayName = displayName
        self.addresses = addresses
        self.interfaces = interfaces
        self.services = services
    }
}

extension MDNSHostTable {
    /// Every host, in no particular order.
    public var hosts: [AnnouncedHost] { keysByHost.keys.compactMap { host(named: $0) } }

    /// The host with this canonical host name, derived from its instances, or `nil` if it has none.
    /// - Complexity: O(k log k) for k instances of the host.
    public func host(named hostName: String) -> AnnouncedHost? {
        guard let keys = keysByHost[hostName], !keys.isEmpty else { return nil }
        var addresses: Set<String> = []
        var interfaces: Set<String> = []
        var latest: [ServiceKey: Row] = [:]
        for record in addressRecords[hostName] ?? [] { addresses.insert(record.address) }
        for record in unconfirmedAddressRecords[hostName] ?? [] { addresses.insert(record.address) }
        for key in keys {
            guard let row = rows[key] else { continue }
            addresses.formUnion(row.addresses)
            interfaces.insert(key.interface)
            let service = key.service
            if let current = latest[service], current.resolution > row.resolution { continue }
            latest[service] = row
        }
        let services = latest.sorted { $0.key < $1.key }.map { service, row in
            DeviceService(
                name: service.name,
                type: service.type,
                domain: service.domain,
                port: row.port,
                txt: Self.canonicalTXT(row.txt)
            )
        }
        return AnnouncedHost(
            hostName: hostName,
            displayName: Self.displayName(hostName: hostName, services: services),
            addresses: addresses.sorted(by: AddressOrder.precedes),
            interfaces: interfaces.sorted(),
            services: services
        )
    }

    /// A TXT record in canonical form: the first entry of each key (RFC 6763 §6.4; keys compare case-insensitively),
    /// sorted by key, so that the order a responder publishes in never shows as a change.
    static func canonicalTXT(_ entries: [TXTEntry]) -> [TXTEntry] {
        var seen: Set<String> = []
        return entries.filter { !$0.key.isEmpty && seen.insert($0.key.lowercased()).inserted }.sorted {
            $0.key < $1.key
        }
    }

    /// The instance name most of the services share (ties: the smallest), or the host name's first label.
    static func displayName(hostName: String, services: [DeviceService]) -> String {
        var counts: [String: Int] = [:]
        for service in services { counts[service.name, default: 0] += 1 }
        let best = counts.max { ($0.value, $1.key) < ($1.value, $0.key) }
        return best?.key ?? String(hostName.split(separator: ".").first ?? Substring(hostName))
    }
}
