import Diffable
import DiscoveryTerms
import Foundation

/// The sections of peerscan's snapshot, in order.
public enum ScanSection: String, Hashable, Sendable, Codable, CaseIterable {
    /// The scanning switch and this host: always present.
    case config
    /// The Wi-Fi networks in range, then the devices found: present only while scanning is on.
    case networks
}

/// The state of this host as the `host` item shows it.
public struct HostStatus: Hashable, Sendable {
    /// This host's mDNS host name, once the discovery daemon told it.
    public var hostName: String?
    /// The discovery daemon's state.
    public var sourceState: SourceState
    /// The interfaces browsed, sorted: the configured ones, or else every interface mDNS is browsed on by default (up,
    /// multicast-capable, not loopback, with an address). Changes only when an interface goes up or down.
    public var interfaces: [String]
    /// The limits of the system the network reached, by name; empty while none is.
    public var limits: [SystemLimit]

    /// Creates a host status.
    public init(
        hostName: String? = nil,
        sourceState: SourceState = .connecting,
        interfaces: [String] = [],
        limits: [SystemLimit] = []
    ) {
        self.hostName = hostName
        self.sourceState = sourceState
        self.interfaces = interfaces
        self.limits = limits
    }
}

/// An item of peerscan's snapshot.
///
/// JSON form (the wire form of every item — see docs/protocol.md):
/// - `{"id": UUID, "kind": "scanning", "enabled": Bool}`
/// - `{"id": UUID, "kind": "host", "hostName": String?, "avahiState": "running"|"connecting"|"registering"|
///   "collision"|"failure"|"unavailable", "avahiReason": String?, "interfaces": [String], "limits": [SystemLimit]}`
///   (`limits` may be absent: an older daemon's, read as empty)
/// - `{"id": UUID, "kind": "peer", "hostName": String?, "displayName": String?, "addresses": [String],
///   "interfaces": [String], "services": [{"name", "type", "domain", "port", "txt": {key: value-or-null}}],
///   "macAddresses": [String], "vendor": String?, "online": Bool, "label": String?, "important": Bool,
///   "bluetooth": BluetoothFacts (absent for a device not heard over Bluetooth)}`
/// - `wifiInterface` and `wifiNetwork`: see ScanItem+WiFi.swift.
public enum ScanItem: Hashable, Sendable, Identifiable {
    /// The scanning switch.
    case scanning(enabled: Bool)
    /// This host.
    indirect case host(HostStatus)
    /// A device found on the network (`"kind": "peer"` on the wire, the name the protocol has always used). Boxed
    /// (`indirect`): a snapshot copies and compares its items often, and a box is one reference to count instead of
    /// one per field of the device.
    indirect case device(Device)
    /// A wireless interface of this host (`config` section, after the host).
    indirect case wifiInterface(WirelessInterfaceStatus)
    /// A Wi-Fi network in range (`networks` section, before the devices).
    indirect case wifiNetwork(WiFiNetwork)

    public var id: DeviceID {
        switch self {
        case .scanning: DeviceID.scanning
        case .host: DeviceID.host
        case .device(let device): device.id
        case .wifiInterface(let interface): interface.id
        case .wifiNetwork(let network): network.id
        }
    }

    /// The kind, as in the `kind` field of the JSON form.
    public var kind: String {
        switch self {
        case .scanning: "scanning"
        case .host: "host"
        case .device: "peer"
        case .wifiInterface: "wifiInterface"
        case .wifiNetwork: "wifiNetwork"
        }
    }

    /// The device, for a device item.
    public var device: Device? {
        if case .device(let device) = self { return device }
        return nil
    }

    /// The Wi-Fi network, for a Wi-Fi network item.
    public var wifiNetwork: WiFiNetwork? {
        if case .wifiNetwork(let network) = self { return network }
        return nil
    }

    /// The wireless interface, for a wireless interface item.
    public var wifiInterface: WirelessInterfaceStatus? {
        if case .wifiInterface(let interface) = self { return interface }
        return nil
    }
}

/// peerscan's snapshot: a `config` section, then (while scanning) a `networks` section.
public typealias ScanSnapshot = Snapshot<ScanSection, ScanItem>

/// A changeset between two ``ScanSnapshot``s.
public typealias ScanChangeset = Changeset<ScanSection, ScanItem>

extension ScanItem: Codable {
    private enum CodingKeys: String, CodingKey {
        case id, kind, enabled, hostName, avahiState, avahiReason, interfaces, displayName, addresses, services
        case macAddresses, vendor, online, presenceReason, label, important, bluetooth, limits
    }

    private enum ServiceKeys: String, CodingKey {
        case name, type, domain, port, txt
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let id = try container.decode(DeviceID.self, forKey: .id)
        switch try container.decode(String.self, forKey: .kind) {
        case "scanning":
            self = .scanning(enabled: try container.decode(Bool.self, forKey: .enabled))
        case "host":
            let reason = try container.decodeIfPresent(String.self, forKey: .avahiReason) ?? ""
            let state: SourceState =
                switch try container.decode(String.self, forKey: .avahiState) {
                case "running": .running
                case "connecting": .connecting
                case "registering": .registering
                case "collision": .collision
                case "failure": .failure(reason: reason)
                case "unavailable": .unavailable(reason: reason)
                case let other:
                    throw DecodingError.dataCorruptedError(
                        forKey: .avahiState,
                        in: container,
                        debugDescription: "Unknown Avahi state \"\(other)\"."
                    )
                }
            self = .host(
                HostStatus(
                    hostName: try container.decodeIfPresent(String.self, forKey: .hostName),
                    sourceState: state,
                    interfaces: try container.decode([String].self, forKey: .interfaces),
                    limits: try container.decodeIfPresent([SystemLimit].self, forKey: .limits) ?? []
                )
            )
        case "peer":
            var servicesContainer = try container.nestedUnkeyedContainer(forKey: .services)
            var services: [DeviceService] = []
            while !servicesContainer.isAtEnd {
                let service = try servicesContainer.nestedContainer(keyedBy: ServiceKeys.self)
                let txtContainer = try service.nestedContainer(keyedBy: AnyKey.self, forKey: .txt)
                let txt = try txtContainer.allKeys.sorted { TXTEntry.keyPrecedes($0.stringValue, $1.stringValue) }.map {
                    TXTEntry(key: $0.stringValue, value: try txtContainer.decodeIfPresent(String.self, forKey: $0))
                }
                services.append(
                    DeviceService(
                        name: try service.decode(String.self, forKey: .name),
                        type: try service.decode(String.self, forKey: .type),
                        domain: try service.decode(String.self, forKey: .domain),
                        port: try service.decode(UInt16.self, forKey: .port),
                        txt: txt
                    )
                )
            }
            let bluetooth = try container.decodeIfPresent(BluetoothFacts.self, forKey: .bluetooth)
            self = .device(
                Device(
                    id: id,
                    hostName: try container.decodeIfPresent(String.self, forKey: .hostName),
                    displayName: try container.decodeIfPresent(String.self, forKey: .displayName),
                    addresses: try container.decode([String].self, forKey: .addresses),
                    interfaces: try container.decode([String].self, forKey: .interfaces),
                    services: services,
                    macAddresses: try container.decodeIfPresent([String].self, forKey: .macAddresses) ?? [],
                    vendor: try container.decodeIfPresent(String.self, forKey: .vendor),
                    online: try container.decodeIfPresent(Bool.self, forKey: .online) ?? true,
                    presenceReason: try container.decodeIfPresent(String.self, forKey: .presenceReason)
                        .flatMap(PresenceReason.init),
                    assignedName: try container.decodeIfPresent(String.self, forKey: .label),
                    isImportant: try container.decodeIfPresent(Bool.self, forKey: .important) ?? false,
                    bluetooth: bluetooth
                )
            )
        case "wifiInterface":
            self = .wifiInterface(try WirelessInterfaceStatus(from: decoder))
        case "wifiNetwork":
            self = .wifiNetwork(try WiFiNetwork(from: decoder))
        case let other:
            throw DecodingError.dataCorruptedError(
                forKey: .kind,
                in: container,
                debugDescription: "Unknown item kind \"\(other)\"."
            )
        }
        // A device or a Wi-Fi item may not take the scanning or host item's id: a snapshot would hold two items with
        // one identifier. (The daemon derives these ids from names; a client takes them as they come and does not
        // re-derive them.)
        let hasFixedID = kind == "scanning" || kind == "host"
        guard self.id == id, hasFixedID || (id != DeviceID.scanning && id != DeviceID.host) else {
            throw DecodingError.dataCorruptedError(
                forKey: .id,
                in: container,
                debugDescription: hasFixedID
                    ? "The \(kind) item's id must be \(self.id)."
                    : "A \(kind) item may not have the id of the scanning or host item (\(id))."
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .wifiInterface(let interface): return try interface.encode(to: encoder)
        case .wifiNetwork(let network): return try network.encode(to: encoder)
        case .scanning, .host, .device: break
        }
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(kind, forKey: .kind)
        switch self {
        case .scanning(let enabled):
            try container.encode(enabled, forKey: .enabled)
        case .host(let status):
            try container.encode(status.hostName, forKey: .hostName)
            try container.encode(status.sourceState.name, forKey: .avahiState)
            try container.encode(status.sourceState.reason, forKey: .avahiReason)
            try container.encode(status.interfaces, forKey: .interfaces)
            try container.encode(status.limits, forKey: .limits)
        case .device(let device):
            try container.encode(device.hostName, forKey: .hostName)
            try container.encode(device.displayName, forKey: .displayName)
            try container.encode(device.addresses, forKey: .addresses)
            try container.encode(device.interfaces, forKey: .interfaces)
            var services = container.nestedUnkeyedContainer(forKey: .services)
            for service in device.services {
                var serviceContainer = services.nestedContainer(keyedBy: ServiceKeys.self)
                try serviceContainer.encode(service.name, forKey: .name)
                try serviceContainer.encode(service.type, forKey: .type)
                try serviceContainer.encode(service.domain, forKey: .domain)
                try serviceContainer.encode(service.port, forKey: .port)
                var txt = serviceContainer.nestedContainer(keyedBy: AnyKey.self, forKey: .txt)
                for entry in service.txt { try txt.encode(entry.value, forKey: AnyKey(stringValue: entry.key)) }
            }
            try container.encode(device.macAddresses, forKey: .macAddresses)
            try container.encode(device.vendor, forKey: .vendor)
            try container.encode(device.online, forKey: .online)
            try container.encode(device.presenceReason?.description, forKey: .presenceReason)
            try container.encode(device.assignedName, forKey: .label)
            try container.encode(device.isImportant, forKey: .important)
            try container.encodeIfPresent(device.bluetooth, forKey: .bluetooth)  // absent: not heard over Bluetooth
        case .wifiInterface, .wifiNetwork:
            break  // encoded above
        }
    }
}
