import Foundation
import PeerScanModel

/// What is an alert: the store's updates and notices in, alerts out — a pure state machine with bounded memory, no
/// I/O and no clock of its own.
///
/// Its owner feeds it every changeset (``apply(_:at:)``) and every batch of ``StoreNotice``s (``note(_:at:)``), calls
/// ``takeAlerts(at:)`` after each and when ``nextWake(at:)`` is due, and writes what it returns to the outbox at once
/// (with its not-before time, if any).
///
/// ## What alerts
/// - `new-device` (``StoreNotice/newDevice(_:)``): it waits up to ``Settings/nameWait`` for the device's mDNS name
///   (a display or host name) and then goes with what is known (its vendor, its address). A device that leaves
///   meanwhile goes at once, unless it was merged into another (``StoreNotice/merged(_:into:)``): then it was none.
/// - `offline`, `online`: the `online` flag of a device's item flipped (the daemon flips it only when the transition
///   held; its ``Device/presenceReason`` says why). A device inserted or removed is no transition: after a restart
///   nothing is known of its state before.
/// - `address-conflict`, `evil-twin`, `new-access-point`: from the notices, when the default rule lists them.
/// - `scanner-fault`, always: the `host` item's Avahi state turns `failure` or `unavailable`, a system limit appears
///   in its `limits`.
///
/// Which devices alert for which events is ``AlertRules``'; a Bluetooth device with an ephemeral address never
/// alerts.
///
/// ## Noise
/// - A flap: within ``Settings/flapWindow`` after a device's presence alert, its flips are folded into that alert
///   (none is sent): offline then online again within the window is one alert. When the window ends, a device whose
///   state is no longer the one alerted alerts once for its state now (so that a device back within the window is not
///   left alerted as offline); one that flapped back to the state alerted sends nothing.
/// - Never a repeat for one state: a device alerts `offline` only when the last state alerted was online.
/// - Quiet hours: an alert decided within them is taken at once, like any other, with a not-before time: the end of
///   the quiet hours (``DecidedAlert/notBefore``). The outbox keeps it (durably: a restart does not lose it) and
///   offers it from then on, each as it was decided, oldest first (no digest: each keeps its idempotency key and its
///   device's order). The policy holds nothing itself, so it has no cap of its own: the outbox's bounds apply.
public struct AlertPolicy: Sendable {
    /// The policy's settings (peerscand's `--alert-…` options).
    public struct Settings: Sendable {
        /// How long a new device's alert waits for its name (`--alert-name-wait`).
        public var nameWait: Duration
        /// How long after a presence alert the device's flips are folded into it (`--alert-flap-window`).
        public var flapWindow: Duration
        /// When alerts are held (`--alert-quiet-hours`), `nil` for never.
        public var quietHours: QuietHours?
        /// The calendar quiet hours are read in (the local time zone).
        public var calendar: Calendar

        /// Creates settings; by default peerscand's.
        public init(
            nameWait: Duration = .seconds(30),
            flapWindow: Duration = .seconds(300),
            quietHours: QuietHours? = nil,
            calendar: Calendar = .current
        ) {
            self.nameWait = nameWait
            self.flapWindow = flapWindow
            self.quietHours = quietHours
            self.calendar = calendar
        }
    }

    /// A moment on both clocks: the daemon's (``ScanClock``) for the waits and windows, the wall clock for an
    /// alert's `created` and the quiet hours.
    public struct Moment: Sendable {
        /// The daemon's clock.
        public var now: Duration
        /// The wall clock.
        public var date: Date

        /// Creates a moment.
        public init(now: Duration, date: Date) {
            self.now = now
            self.date = date
        }
    }

    /// What the policy remembers of a device's presence.
    struct PresenceMemory: Sendable {
        /// The last state seen (alerted or folded).
        var isOnline: Bool
        /// When its last presence alert was decided.
        var alertedAt: Duration?
        /// The state its last presence alert said (online or not); `nil` before its first.
        var alertedOnline: Bool?
    }

    public let settings: Settings
    /// The person's rules.
    public var rules: AlertRules

    private var devices: [DeviceID: Device] = [:]
    private var presence: [DeviceID: PresenceMemory] = [:]
    /// Devices that flipped within their flap window, with the window's end: then their state is settled.
    private var flapping: [DeviceID: Duration] = [:]
    private var host: HostStatus?
    /// New devices waiting for their names, with their deadlines, in the order they appeared.
    private var awaitingName: [(id: DeviceID, device: Device, deadline: Duration)] = []
    /// Alerts decided and not taken yet, with when they were decided and when quiet hours let them go (`nil`: at
    /// once).
    private var decided: [(content: AlertContent, date: Date, notBefore: Date?)] = []
    private let makeID: @Sendable () -> UUID

    /// Creates a policy over the snapshot a subscription starts from: what it holds is known, not new.
    ///
    /// - Parameter makeID: Makes each alert's identifier (random UUIDs; tests give their own).
    public init(
        settings: Settings = Settings(),
        rules: AlertRules = AlertRules(),
        snapshot: ScanSnapshot,
        makeID: @escaping @Sendable () -> UUID = { UUID() }
    ) {
        self.settings = settings
        self.rules = rules
        self.makeID = makeID
        for item in snapshot.items { remember(item) }
    }

    // MARK: - Inputs

    /// A changeset of the store (after the one before it, or the snapshot the policy started from).
    /// - Complexity: O(c) for c changes.
    public mutating func apply(_ changes: ScanChangeset, at moment: Moment) {
        for delete in changes.itemDeletes {
            if let index = awaitingName.firstIndex(where: { $0.id == delete.id }) {
                let waiting = awaitingName.remove(at: index)
                decide(.device(.newDevice, devices[delete.id] ?? waiting.device), at: moment)
            }
            devices[delete.id] = nil
            presence[delete.id] = nil
            flapping[delete.id] = nil
        }
        for payload in changes.itemInserts + changes.itemUpdates {
            switch payload.item {
            case .device(let device): changed(device, at: moment)
            case .host(let status): changed(status, at: moment)
            default: break
            }
        }
    }

    /// What a batch of the store decided beyond its items.
    public mutating func note(_ notices: [StoreNotice], at moment: Moment) {
        for notice in notices {
            switch notice {
            case .newDevice(let device):
                guard device.bluetooth?.isEphemeral != true, rules.events(for: device).contains(.newDevice) else {
                    continue
                }
                if device.hasMDNSName {
                    decide(.device(.newDevice, device), at: moment)
                } else {
                    awaitingName.append((device.id, device, moment.now + settings.nameWait))
                }
            case .addressConflict(let fields, _):
                if rules.alerts(deviceless: .addressConflict) {
                    decide(.notice(.addressConflict, fields: fields), at: moment)
                }
            case .newAccessPoint(let fields):
                if rules.alerts(deviceless: .newAccessPoint) {
                    decide(.notice(.newAccessPoint, fields: fields), at: moment)
                }
            case .merged(let id, _):
                // It was another device all along: no device of its own, so not new (`into` has its own notice if
                // it is).
                awaitingName.removeAll { $0.id == id }
            case .possibleEvilTwin(let fields):
                if rules.alerts(deviceless: .evilTwin) { decide(.notice(.evilTwin, fields: fields), at: moment) }
            }
        }
    }

    // MARK: - Outputs

    /// The alerts decided until now, oldest first: those of the inputs since the last call, the devices whose flap
    /// window ended in another state than the one alerted, and the new devices whose wait for a name ended. One
    /// decided in quiet hours has their end as its not-before time.
    public mutating func takeAlerts(at moment: Moment) -> [DecidedAlert] {
        settleFlaps(at: moment)
        while let first = awaitingName.first, first.deadline <= moment.now {
            awaitingName.removeFirst()
            decide(.device(.newDevice, devices[first.id] ?? first.device), at: moment)
        }
        defer { decided = [] }
        return decided.map { content, date, notBefore in
            DecidedAlert(content.stamped(id: makeID(), created: date), notBefore: notBefore)
        }
    }

    /// How long from `moment` until ``takeAlerts(at:)`` has something new: a name wait or a flap window ends; `nil`
    /// if nothing waits. (The end of quiet hours is the outbox's wake, not the policy's.)
    public func nextWake(at moment: Moment) -> Duration? {
        var wakes: [Duration] = []
        if let first = awaitingName.first { wakes.append(max(first.deadline - moment.now, .zero)) }
        if let end = flapping.values.min() { wakes.append(max(end - moment.now, .zero)) }
        return wakes.min()
    }

    /// How many alerts wait for a name (or were decided and not taken yet).
    public var waitingCount: Int { awaitingName.count + decided.count }

    // MARK: - Deciding

    /// The end of the quiet hours `date` is in, or `nil` outside them.
    private func quietEnd(at date: Date) -> Date? {
        guard let remaining = settings.quietHours?.remaining(at: date, calendar: settings.calendar) else { return nil }
        let (seconds, attoseconds) = remaining.components
        return date + TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }

    private mutating func decide(_ content: AlertContent, at moment: Moment) {
        decided.append((content, moment.date, quietEnd(at: moment.date)))
    }

    private mutating func remember(_ item: ScanItem) {
        switch item {
        case .device(let device):
            devices[device.id] = device
            presence[device.id] = PresenceMemory(isOnline: device.online)
        case .host(let status):
            host = status
        default:
            break
        }
    }

    private mutating func changed(_ device: Device, at moment: Moment) {
        devices[device.id] = device
        if device.hasMDNSName, let index = awaitingName.firstIndex(where: { $0.id == device.id }) {
            awaitingName.remove(at: index)
            decide(.device(.newDevice, device), at: moment)
        }
        guard var memory = presence[device.id] else {
            presence[device.id] = PresenceMemory(isOnline: device.online)  // inserted: no transition
            return
        }
        defer { presence[device.id] = memory }
        guard memory.isOnline != device.online else { return }  // never a repeat for one state
        memory.isOnline = device.online
        let event: AlertEvent = device.online ? .online : .offline
        guard device.bluetooth?.isEphemeral != true, rules.events(for: device).contains(event) else { return }
        if let alertedAt = memory.alertedAt, moment.now - alertedAt < settings.flapWindow {
            flapping[device.id] = alertedAt + settings.flapWindow  // a flap: settled when the window ends
            return
        }
        memory.alertedAt = moment.now
        memory.alertedOnline = device.online
        decide(.device(event, device), at: moment)
    }

    /// Each device whose flap window ended: an alert for its state now if that is not the state alerted.
    private mutating func settleFlaps(at moment: Moment) {
        for (id, end) in flapping.sorted(by: { $0.value < $1.value }) where end <= moment.now {
            flapping[id] = nil
            guard let device = devices[id], var memory = presence[id], memory.alertedOnline != device.online else {
                continue
            }
            let event: AlertEvent = device.online ? .online : .offline
            guard rules.events(for: device).contains(event) else { continue }
            memory.alertedAt = moment.now
            memory.alertedOnline = device.online
            presence[id] = memory
            decide(.device(event, device), at: moment)
        }
    }

    private mutating func changed(_ status: HostStatus, at moment: Moment) {
        let before = host
        host = status
        let wasFaulty = before.map { Self.isFault($0.sourceState) } ?? false
        if Self.isFault(status.sourceState), !wasFaulty { decide(.avahiFault(status.sourceState), at: moment) }
        let known = Set(before?.limits.map(\.name) ?? [])
        for limit in status.limits where !known.contains(limit.name) { decide(.limitReached(limit), at: moment) }
    }

    private static func isFault(_ state: SourceState) -> Bool {
        switch state {
        case .failure, .unavailable: true
        default: false
        }
    }
}

extension Device {
    /// Whether the device has a name from mDNS (or a person): what a new device's alert waits for.
    var hasMDNSName: Bool { displayName != nil || hostName != nil }
}
