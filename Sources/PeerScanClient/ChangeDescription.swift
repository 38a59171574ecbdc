import Diffable
import PeerScanModel

/// One line of `peerscanctl watch`: a change of the snapshot, described for people.
public struct ChangeLine: Hashable, Sendable, CustomStringConvertible {
    /// What kind of change the line reports; it decides the sign and the colour.
    public enum Kind: Hashable, Sendable {
        /// A device or a Wi-Fi network appeared: `+ …`, green.
        case added
        /// A device went away: `- …`, red.
        case removed
        /// A device changed: `~ …`, yellow.
        case changed
        /// The configuration changed (scanning, Avahi, this host): no sign, no colour.
        case configuration
        /// An address moved from one device to another (an address conflict, or a new owner): `! …`, red.
        case addressMoved
    }

    /// The kind of change.
    public var kind: Kind
    /// The description, without the sign.
    public var text: String

    /// Creates a line.
    public init(_ kind: Kind, _ text: String) {
        self.kind = kind
        self.text = text
    }

    /// The line as printed without colour: `+ Living Room TV (tv.local) 10.0.0.7 _airplay._tcp`.
    public var description: String {
        switch kind {
        case .added: "+ \(text)"
        case .removed: "- \(text)"
        case .changed: "~ \(text)"
        case .configuration: text
        case .addressMoved: "! \(text)"
        }
    }

    /// The colour the line is printed in on a terminal.
    public var colour: TerminalText.Colour? {
        switch kind {
        case .added: .green
        case .removed: .red
        case .changed: .yellow
        case .configuration: nil
        case .addressMoved: .red
        }
    }
}

/// Describes the changes between two snapshots for people, one ``ChangeLine`` per device or setting that changed.
///
/// Lines come in this order: configuration (scanning, Avahi's state, this host), devices removed (in their old
/// order), devices added and devices changed (in their new order). A change of order alone (a device moved because
/// its name changed) is not a change for people and prints nothing; the rename does. When scanning is switched off
/// the devices are not reported as removed one by one: the `scanning switched off` line counts them.
///
/// A changed device is described precisely, e.g.
/// `~ Living Room TV: + _ssh._tcp, address 10.0.0.7 gone, _airplay._tcp txt model=X1→X2, _http._tcp port 80→8080`.
/// Text published by devices is escaped (``TerminalText/escapingControlCharacters(_:)``).
public enum ChangeDescription {
    /// The lines describing a changeset.
    ///
    /// - Parameters:
    ///   - changes: A changeset that takes `old` to `new`.
    ///   - old: The snapshot before.
    ///   - new: The snapshot after.
    /// - Returns: The lines, empty if nothing visible changed.
    /// - Complexity: O(c + d) for c changes and the d services, addresses and TXT entries of the devices changed.
    public static func lines(for changes: ScanChangeset, from old: ScanSnapshot, to new: ScanSnapshot) -> [ChangeLine] {
        let networksDeleted = changes.sectionDeletes.contains { $0.id == .networks }
        let oldNetworks = old.index(ofSection: .networks)
        var hiddenDevices = 0
        var removed: [ChangeLine] = []
        var configuration: [ChangeLine] = []
        for delete in changes.itemDeletes {
            if case .wifiNetwork(let network)? = old.item(at: delete.from),
                !(networksDeleted && delete.from.section == oldNetworks)
            {
                removed.append(ChangeLine(.removed, WiFiText.line(of: network)))
            }
            if case .wifiInterface(let interface)? = old.item(at: delete.from) {
                configuration.append(ChangeLine(.configuration, "wifi \(escaped(interface.name)) gone"))
            }
            guard case .device(let device)? = old.item(at: delete.from) else { continue }
            if networksDeleted && delete.from.section == oldNetworks {
                hiddenDevices += 1
            } else {
                removed.append(ChangeLine(.removed, summary(of: device)))
            }
        }

        var added: [(ItemIndexPath, ChangeLine)] = []
        for insert in changes.itemInserts {
            switch insert.item {
            case .device(let device): added.append((insert.at, ChangeLine(.added, summary(of: device))))
            case .scanning(let enabled):
                configuration.append(ChangeLine(.configuration, "scanning \(enabled ? "on" : "off")"))
            case .host(let status): configuration += hostLines(from: nil, to: status)
            case .wifiInterface(let interface):
                configuration.append(ChangeLine(.configuration, "wifi \(WiFiText.summary(of: interface))"))
            case .wifiNetwork(let network): added.append((insert.at, ChangeLine(.added, WiFiText.line(of: network))))
            }
        }
        for update in changes.itemUpdates {
            let previous = old.item(withIdentifier: update.item.id)
            switch (previous, update.item) {
            case (.scanning(let was)?, .scanning(let now)) where was != now:
                var text = "scanning switched \(now ? "on" : "off")"
                if hiddenDevices > 0 {
                    text += " (\(hiddenDevices) \(hiddenDevices == 1 ? "device" : "devices") no longer listed)"
                    hiddenDevices = 0
                }
                configuration.insert(ChangeLine(.configuration, text), at: 0)
            case (.host(let was)?, .host(let now)):
                configuration += hostLines(from: was, to: now)
            case (.device(let was)?, .device(let now)):
                added.append((update.at, ChangeLine(.changed, changeSummary(from: was, to: now))))
            case (.wifiNetwork(let was)?, .wifiNetwork(let now)):
                added.append((update.at, ChangeLine(.changed, WiFiText.change(from: was, to: now))))
            case (.wifiInterface(let was)?, .wifiInterface(let now)) where was != now:
                configuration.append(ChangeLine(.configuration, "wifi \(WiFiText.summary(of: now))"))
            case (_, .device(let now)):
                added.append((update.at, ChangeLine(.changed, "\(escaped(now.label)): changed")))
            default:
                break
            }
        }
        if hiddenDevices > 0 {
            configuration.append(
                ChangeLine(
                    .configuration,
                    "device list removed (\(hiddenDevices) \(hiddenDevices == 1 ? "device" : "devices") no longer listed)"
                )
            )
        }
        // Inserts and updates are each sorted by new position; merge them so the lines follow the new order.
        let ordered = added.enumerated().sorted { ($0.element.0, $0.offset) < ($1.element.0, $1.offset) }
        return configuration + removed + ordered.map(\.element.1) + movedAddresses(in: changes, from: old)
    }

    /// `! address 10.0.0.7 moved from Printer to 3c:22:fb:44:55:66`: the addresses one device lost and another
    /// gained in the same changeset (another MAC address answers for them now: an address conflict, or a new owner).
    /// Not when the two devices share a MAC address: that is one host whose MAC-only item became its mDNS item.
    static func movedAddresses(in changes: ScanChangeset, from old: ScanSnapshot) -> [ChangeLine] {
        var lostBy: [String: Device] = [:]
        for delete in changes.itemDeletes {
            guard let device = old.item(at: delete.from)?.device else { continue }
            for address in device.addresses { lostBy[address] = device }
        }
        for update in changes.itemUpdates {
            guard let was = old.item(withIdentifier: update.item.id)?.device, let now = update.item.device else {
                continue
            }
            for address in additions(from: now.addresses, to: was.addresses) { lostBy[address] = was }
        }
        guard !lostBy.isEmpty else { return [] }
        var lines: [ChangeLine] = []
        for payload in changes.itemInserts + changes.itemUpdates {
            guard let now = payload.item.device else { continue }
            let had = old.item(withIdentifier: now.id)?.device?.addresses ?? []
            for address in additions(from: had, to: now.addresses) {
                // Between devices that share a MAC address it is a merge (a MAC-only device's host announced mDNS).
                guard let previous = lostBy[address], previous.id != now.id,
                    Set(previous.macAddresses).isDisjoint(with: now.macAddresses)
                else { continue }
                lines.append(
                    ChangeLine(
                        .addressMoved,
                        escaped("address \(address) moved from \(previous.label) to \(now.label)")
                    )
                )
            }
        }
        return lines
    }

    /// The lines describing what differs between two snapshots, computed with `Snapshot.difference(from:)`: what
    /// `watch` prints after a resync.
    ///
    /// - Complexity: That of `difference(from:)`, plus that of ``lines(for:from:to:)``.
    public static func lines(from old: ScanSnapshot, to new: ScanSnapshot) -> [ChangeLine] {
        lines(for: new.difference(from: old), from: old, to: new)
    }

    /// `Living Room TV (tv.local) 10.0.0.7 _airplay._tcp,_raop._tcp`, with the MAC address and vendor when known
    /// (`3c:22:fb:44:55:66 Apple, Inc.`), `important` when a person marked it so and `offline` when it is.
    static func summary(of device: Device) -> String {
        var parts = [device.label]
        if let hostName = device.hostName { parts.append("(\(hostName))") }
        if device.displayName == nil, let mac = device.macAddresses.first, mac == device.label {
            // the label is the MAC address already
        } else if !device.macAddresses.isEmpty {
            parts.append(device.macAddresses.joined(separator: ","))
        }
        if let vendor = BluetoothText.vendor(of: device) { parts.append("[\(vendor)]") }
        if let bluetooth = BluetoothText.summary(of: device) { parts.append(bluetooth) }
        if !device.addresses.isEmpty || device.bluetooth == nil {
            parts.append(device.addresses.isEmpty ? "(no address)" : device.addresses.joined(separator: ","))
        }
        let types = SnapshotTable.serviceTypes(of: device).joined(separator: ",")
        if !types.isEmpty { parts.append(types) }
        if device.isImportant { parts.append("important") }
        if !device.online { parts.append("offline") }
        return escaped(parts.joined(separator: " "))
    }

    /// `Living Room TV: + _ssh._tcp, address 10.0.0.7 gone, …`: the old name, then every difference.
    static func changeSummary(from old: Device, to new: Device) -> String {
        var parts: [String] = []
        if old.online != new.online {
            parts.append((new.online ? "online" : "offline") + (new.presenceReason.map { " (\($0))" } ?? ""))
        }
        if old.label != new.label { parts.append("renamed to \(new.label)") }
        if old.isImportant != new.isImportant { parts.append(new.isImportant ? "important" : "not important") }
        if old.hostName != new.hostName {
            parts.append("host \(old.hostName ?? "(none)")→\(new.hostName ?? "(none)")")
        }
        parts += additions(from: old.macAddresses, to: new.macAddresses).map { "mac \($0) new" }
        parts += additions(from: new.macAddresses, to: old.macAddresses).map { "mac \($0) gone" }
        if old.vendor != new.vendor, let vendor = new.vendor { parts.append("vendor \(vendor)") }
        parts += BluetoothText.changes(from: old.bluetooth, to: new.bluetooth)

        let oldServices = Dictionary(old.services.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        let newServices = Dictionary(new.services.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        // A type is named with its instance name when the device has (or had) several services of that type.
        var typeCounts: [String: Int] = [:]
        for key in Set(oldServices.keys).union(newServices.keys) { typeCounts[key.type, default: 0] += 1 }
        func label(_ service: DeviceService) -> String {
            var label = service.type
            if typeCounts[service.type, default: 0] > 1 { label += " \"\(service.name)\"" }
            if service.domain != "local" { label += " in \(service.domain)" }
            return label
        }
        parts += new.services.filter { oldServices[$0.key] == nil }.map { "+ \(label($0))" }
        parts += old.services.filter { newServices[$0.key] == nil }.map { "- \(label($0))" }

        parts += additions(from: old.addresses, to: new.addresses).map { "address \($0) new" }
        parts += additions(from: new.addresses, to: old.addresses).map { "address \($0) gone" }
        parts += additions(from: old.interfaces, to: new.interfaces).map { "interface \($0) new" }
        parts += additions(from: new.interfaces, to: old.interfaces).map { "interface \($0) gone" }

        for service in new.services {
            guard let before = oldServices[service.key] else { continue }
            if before.txt != service.txt {
                parts.append("\(label(service)) txt \(txtChanges(from: before.txt, to: service.txt))")
            }
            if before.port != service.port { parts.append("\(label(service)) port \(before.port)→\(service.port)") }
        }
        if parts.isEmpty { parts.append("changed") }
        return escaped("\(old.label): \(parts.joined(separator: ", "))")
    }

    /// `model=X1→X2 +fw=2 -color`: the keys whose value changed, the keys added, the keys removed.
    static func txtChanges(from old: [TXTEntry], to new: [TXTEntry]) -> String {
        func entry(_ key: String, _ value: String?) -> String { value.map { "\(key)=\($0)" } ?? key }
        let oldValues = Dictionary(old.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
        let newKeys = Set(new.map(\.key))
        var changes: [String] = []
        for item in new {
            switch oldValues[item.key] {
            case nil:
                changes.append("+\(entry(item.key, item.value))")
            case let before? where before != item.value:
                if let before, let after = item.value {
                    changes.append("\(item.key)=\(before)→\(after)")
                } else {
                    changes.append("\(entry(item.key, before))→\(entry(item.key, item.value))")
                }
            default:
                break
            }
        }
        changes += old.filter { !newKeys.contains($0.key) }.map { "-\($0.key)" }
        return changes.isEmpty ? "reordered" : changes.joined(separator: " ")
    }

    /// Avahi's state, this host's name and interfaces, and the system's limits reached, when they changed.
    static func hostLines(from old: HostStatus?, to new: HostStatus) -> [ChangeLine] {
        var lines: [ChangeLine] = []
        if old?.sourceState != new.sourceState {
            lines.append(ChangeLine(.configuration, "avahi \(SnapshotTable.avahiState(new.sourceState))"))
        }
        var parts: [String] = []
        if old?.hostName != new.hostName {
            let name = { (name: String?) in name.map(escaped) ?? "(unknown)" }
            parts.append(
                old == nil ? "name \(name(new.hostName))" : "name \(name(old?.hostName))→\(name(new.hostName))"
            )
        }
        let oldInterfaces = old?.interfaces ?? []
        parts += additions(from: oldInterfaces, to: new.interfaces).map { "interface \(escaped($0)) new" }
        parts += additions(from: new.interfaces, to: oldInterfaces).map { "interface \(escaped($0)) gone" }
        if !parts.isEmpty { lines.append(ChangeLine(.configuration, "this host: \(parts.joined(separator: ", "))")) }
        // A limit reached or no longer reached (not every count that moves past it: that changes with every device).
        if (old?.limits ?? []).map(\.name) != new.limits.map(\.name) {
            let text = new.limits.isEmpty ? "none reached" : SnapshotTable.limits(new.limits)
            lines.append(ChangeLine(.configuration, "limits \(text)"))
        }
        return lines
    }

    /// The elements of `new` that are not in `old`, in the order of `new`.
    static func additions(from old: [String], to new: [String]) -> [String] {
        let old = Set(old)
        return new.filter { !old.contains($0) }
    }

    static func escaped(_ text: String) -> String { TerminalText.escapingControlCharacters(text) }
}
