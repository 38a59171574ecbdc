import Foundation
import PeerScanModel

/// What `peerscanctl known` and `show` print, and how they find a device by name or MAC address.
public enum KnownDeviceText {
    /// The device a user means by `query`: its id, a name (display name or host name, case-insensitive) or a MAC
    /// address, among `devices`.
    ///
    /// - Returns: The devices that match (more than one when a name is ambiguous).
    public static func matches(_ query: String, in devices: [PeerScanWire.KnownDevice]) -> [PeerScanWire.KnownDevice] {
        let wanted = query.lowercased()
        if let id = DeviceID(text: query) { return devices.filter { $0.id == id } }
        let byMAC = devices.filter { $0.macAddresses.contains { $0.value == wanted } }
        if !byMAC.isEmpty { return byMAC }
        let canonical = wanted.hasSuffix(".") ? String(wanted.dropLast()) : wanted
        return devices.filter { device in
            device.name?.lowercased() == wanted || device.label?.lowercased() == wanted
                || device.hostNames.contains { $0.value == canonical || $0.value == canonical + ".local" }
        }
    }

    /// The id of the one device `query` names among `devices` (see ``matches(_:in:)``).
    ///
    /// - Throws: A ``ClientFailure`` when none matches, or several do: it lists them, one a line, their names
    ///   escaped (a name is what a device published).
    /// - Complexity: O(n) for n devices.
    /// (Untyped `throws`: the typed form, inlined into peerscanctl's async commands, crashed Swift 6.3.1's optimizer
    /// in LLVM's coroutine splitting, `emitSetAndGetSwiftErrorValueAround`, in release builds.)
    public static func match(_ query: String, in devices: [PeerScanWire.KnownDevice]) throws -> DeviceID {
        let matches = matches(query, in: devices)
        let shown = SnapshotTable.escaped(query)
        switch matches.count {
        case 1:
            return matches[0].id
        case 0:
            throw ClientFailure(
                .failure,
                "no device is named \(shown) or has that MAC address (see: peerscanctl known)"
            )
        default:
            let ids = matches.map { "  \($0.id)  \(SnapshotTable.escaped($0.name ?? "-"))" }.joined(separator: "\n")
            throw ClientFailure(.failure, "\(matches.count) devices match \(shown); give one's id:\n\(ids)")
        }
    }

    /// The `known` table: one row per device the registry knows, most recently seen first.
    /// - Complexity: O(n) for n devices.
    public static func table(_ devices: [PeerScanWire.KnownDevice]) -> [String] {
        guard !devices.isEmpty else { return ["peerscand remembers no device yet."] }
        let rows =
            [["NAME", "STATE", "FIRST SEEN", "LAST SEEN", "MAC", "VENDOR", "ID"]]
            + devices.map { device in
                [
                    SnapshotTable.escaped(label(device)),
                    state(device),
                    device.firstSeen,
                    device.online ? "now" : device.lastSeen,
                    device.macAddresses.isEmpty
                        ? "-" : SnapshotTable.escaped(device.macAddresses.map(\.value).joined(separator: ",")),
                    device.vendor.map(SnapshotTable.escaped) ?? "-",
                    device.id.description,
                ]
            }
        return SnapshotTable.columns(rows)
    }

    /// The `show` lines: the device's history, its presence over the last day and its last transitions, and its
    /// services if it is in the snapshot.
    public static func details(_ reply: PeerScanWire.GetDeviceReply, now: Date = Date()) -> [String] {
        let device = reply.history
        var lines = [
            "id:          \(device.id)",
            "name:        \(SnapshotTable.escaped(device.name ?? "-"))",
            "state:       \(state(device))",
            "first seen:  \(device.firstSeen)",
            "last seen:   \(device.online ? "now" : device.lastSeen)",
            "vendor:      \(device.vendor.map(SnapshotTable.escaped) ?? "-")",
        ]
        lines += labelLines(device)
        func section(_ title: String, _ sightings: [PeerScanWire.Sighting]) {
            guard !sightings.isEmpty else { return }
            lines.append("\(title):")
            let rows = sightings.map {
                ["  " + SnapshotTable.escaped($0.value), "first \($0.firstSeen)", "last \($0.lastSeen)"]
            }
            lines += SnapshotTable.columns(rows)
        }
        let transitions = reply.transitions.compactMap { transition in
            (try? Date(transition.at, strategy: .iso8601)).map {
                PresenceTransition(
                    at: $0,
                    online: transition.online,
                    reason: transition.reason.flatMap(PresenceReason.init)
                )
            }
        }
        if !transitions.isEmpty {
            let timeline = PresenceTimeline(transitions: transitions, now: now).lines(indent: 13)
            lines.append("last 24 h:   " + timeline[0])
            lines.append(timeline[1])
            lines.append("transitions:")
            lines += reply.transitions.suffix(5).map { transition in
                "  \(transition.at)  \(transition.online ? "online " : "offline")"
                    + (transition.reason.map { "  \(SnapshotTable.escaped($0))" } ?? "")
            }
        }
        section("host names", device.hostNames)
        section("mac addresses", device.macAddresses)
        section("addresses", device.addresses)
        if let services = reply.device?.device?.services, !services.isEmpty {
            lines.append("services:")
            lines += services.map {
                "  \(SnapshotTable.escaped($0.name)) (\(SnapshotTable.escaped($0.type)), port \($0.port))"
            }
        }
        return lines
    }

    /// The `label`, `note` and `important` lines of what a person said about the device, those that are set.
    static func labelLines(_ device: PeerScanWire.KnownDevice) -> [String] {
        var lines: [String] = []
        if let label = device.label { lines.append("label:       \(SnapshotTable.escaped(label))") }
        if let note = device.note { lines.append("note:        \(SnapshotTable.escaped(note))") }
        if device.important { lines.append("important:   yes") }
        return lines
    }

    /// The line `peerscanctl set` prints: the label as it is now.
    public static func labelSummary(_ reply: PeerScanWire.SetDeviceLabelReply, of id: DeviceID) -> String {
        func quoted(_ text: String?) -> String { text.map { "\"\(SnapshotTable.escaped($0))\"" } ?? "-" }
        return "\(id): name \(quoted(reply.name)), note \(quoted(reply.note)), "
            + (reply.important ? "important" : "not important")
    }

    /// online, offline (in the snapshot, not answering) or absent (remembered only).
    static func state(_ device: PeerScanWire.KnownDevice) -> String {
        device.online ? "online" : device.present ? "offline" : "absent"
    }

    /// The name a person gave it, else its name, else its first MAC address, else its id.
    static func label(_ device: PeerScanWire.KnownDevice) -> String {
        device.label ?? device.name ?? device.macAddresses.first?.value ?? device.id.description
    }
}
