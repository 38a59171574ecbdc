import Foundation
import PeerScanCore
import PeerScanModel

extension DeviceHistory {
    /// The history as the registry's queries answer it (``DeviceRegistry/knownDevices(now:)``,
    /// ``DeviceRegistry/device(_:now:)``), without its transitions: host names, MAC addresses and addresses sorted,
    /// each with when it was first and last seen.
    ///
    /// - Parameters:
    ///   - present: The device as the snapshot lists it now, or `nil` if it is not listed.
    ///   - now: The current time: the last sighting of a device online, and of each value it has now.
    /// - Complexity: O(k log k) for k keys and addresses.
    func record(present: Device?, now: Date) -> KnownDeviceRecord {
        let online = present?.online ?? false
        func sightings(_ values: [(String, SeenSpan)]) -> [KnownDeviceRecord.Sighting] {
            values.sorted { $0.0 < $1.0 }.map { value, span in
                KnownDeviceRecord.Sighting(
                    value: value,
                    firstSeen: span.first,
                    lastSeen: online && Self.isCurrent(value, of: present) ? now : span.last
                )
            }
        }
        var hostNames: [(String, SeenSpan)] = []
        var macs: [(String, SeenSpan)] = []
        for (key, span) in keys {
            switch key {
            case .hostName(let name): hostNames.append((name, span))
            case .macAddress(let mac): macs.append((mac, span))
            case .bluetooth: break  // not a host name or MAC address: listed with the keys only
            }
        }
        return KnownDeviceRecord(
            id: id,
            name: name,
            present: present != nil,
            online: online,
            firstSeen: seen.first,
            lastSeen: online ? now : seen.last,
            vendor: vendor,
            hostNames: sightings(hostNames),
            macAddresses: sightings(macs),
            addresses: sightings(addresses.map { ($0.key, $0.value) }),
            label: label
        )
    }

    /// Whether the device now has `value` as its host name, a MAC address or an address.
    private static func isCurrent(_ value: String, of device: Device?) -> Bool {
        guard let device else { return false }
        return device.addresses.contains(value) || device.macAddresses.contains(value)
            || device.hostName.map(DeviceID.canonicalHostName) == value
    }
}
