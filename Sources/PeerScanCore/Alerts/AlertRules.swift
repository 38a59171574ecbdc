import PeerScanModel

/// Which events alert for which device: a person's rules (per device, and a default for every device without a rule
/// of its own) over the rules out of the box.
///
/// Out of the box (no rule): `new-device` for every device, `offline` and `online` for important devices. The
/// scanner's own faults always alert and are no rule's business. Events without a device (`address-conflict`,
/// `evil-twin`, `new-access-point`) alert when the default rule lists them.
public struct AlertRules: Sendable, Equatable {
    /// The events a device alerts for out of the box.
    public static func outOfTheBox(isImportant: Bool) -> Set<AlertEvent> {
        isImportant ? [.newDevice, .offline, .online] : [.newDevice]
    }

    private var perDevice: [DeviceID: Set<AlertEvent>]
    private var defaultEvents: Set<AlertEvent>?

    /// Creates the rules from a person's, as the registry keeps them (a rule with no device is the default).
    public init(_ rules: [AlertRule] = []) {
        perDevice = [:]
        defaultEvents = nil
        for rule in rules { set(rule) }
    }

    /// Sets a rule, replacing the one for its device (or the default).
    public mutating func set(_ rule: AlertRule) {
        if let device = rule.device {
            perDevice[device] = Set(rule.events)
        } else {
            defaultEvents = Set(rule.events)
        }
    }

    /// Removes the rule of `device` (the default rule when `nil`).
    public mutating func remove(device: DeviceID?) {
        if let device {
            perDevice[device] = nil
        } else {
            defaultEvents = nil
        }
    }

    /// The person's rules, the default first, then by device.
    public var all: [AlertRule] {
        let sortedEvents = { (events: Set<AlertEvent>) in AlertEvent.allCases.filter(events.contains) }
        var rules = defaultEvents.map { [AlertRule(device: nil, events: sortedEvents($0))] } ?? []
        for (device, events) in perDevice.sorted(by: { $0.key < $1.key }) {
            rules.append(AlertRule(device: device, events: sortedEvents(events)))
        }
        return rules
    }

    /// The events `device` alerts for: its own rule, else the default rule, else those out of the box.
    /// - Complexity: O(1)
    public func events(for device: Device) -> Set<AlertEvent> {
        perDevice[device.id] ?? defaultEvents ?? Self.outOfTheBox(isImportant: device.isImportant)
    }

    /// Whether an event without a device alerts: the default rule lists it.
    public func alerts(deviceless event: AlertEvent) -> Bool {
        defaultEvents?.contains(event) ?? false
    }
}
