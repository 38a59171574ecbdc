// The alert policy on a manual clock: changesets made by diffing snapshots, notices as the store reports them, and
// the moment advanced by hand.

import Diffable
import Foundation
import PeerScanModel
import Synchronization
import Testing

@testable import PeerScanCore

/// A policy driven by hand: it keeps the snapshot it was given and diffs each new one against it.
private struct PolicyDriver {
    var policy: AlertPolicy
    var snapshot: ScanSnapshot
    var now: Duration = .zero
    var date = Date(timeIntervalSince1970: 1_800_000_000)  // a fixed wall clock
    /// What the last take returned, with the not-before times.
    var lastDecided: [DecidedAlert] = []

    init(
        _ devices: [Device] = [],
        host: HostStatus = HostStatus(sourceState: .running),
        settings: AlertPolicy.Settings = .init(calendar: .utc),
        rules: AlertRules = AlertRules()
    ) {
        snapshot = Self.snapshot(devices, host: host)
        let counter = Counter()
        policy = AlertPolicy(settings: settings, rules: rules, snapshot: snapshot, makeID: { counter.next() })
    }

    var moment: AlertPolicy.Moment { .init(now: now, date: date) }

    static func snapshot(_ devices: [Device], host: HostStatus) -> ScanSnapshot {
        var snapshot = SnapshotProjection.initial(isScanning: true, host: host)
        try! snapshot.appendItems(devices.map { .device($0) }, toSection: .networks)
        return snapshot
    }

    /// Publishes `devices` and `host` as the store would: the difference from the last snapshot.
    mutating func publish(_ devices: [Device], host: HostStatus = HostStatus(sourceState: .running)) -> [Alert] {
        let next = Self.snapshot(devices, host: host)
        policy.apply(next.difference(from: snapshot), at: moment)
        snapshot = next
        lastDecided = policy.takeAlerts(at: moment)
        return lastDecided.map(\.alert)
    }

    mutating func note(_ notices: StoreNotice...) -> [Alert] {
        policy.note(notices, at: moment)
        lastDecided = policy.takeAlerts(at: moment)
        return lastDecided.map(\.alert)
    }

    var nextWake: Duration? { policy.nextWake(at: moment) }

    mutating func advance(by duration: Duration) -> [Alert] {
        now += duration
        date += TimeInterval(Double(duration.components.seconds))
        lastDecided = policy.takeAlerts(at: moment)
        return lastDecided.map(\.alert)
    }
}

private final class Counter: Sendable {
    private let value = Mutex(0)
    func next() -> UUID {
        value.withLock { count in
            count += 1
            return UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", count))!
        }
    }
}

private func makeDevice(
    _ number: Int,
    name: String? = nil,
    vendor: String? = nil,
    online: Bool = true,
    important: Bool = false,
    ephemeral: Bool = false
) -> Device {
    Device(
        id: DeviceID(UUID(uuidString: String(format: "00000000-0000-0000-0001-%012d", number))!),
        hostName: name.map { "\($0.lowercased()).local" },
        displayName: name,
        addresses: ["10.0.0.\(number)"],
        interfaces: ["eth0"],
        services: [],
        macAddresses: [String(format: "02:00:00:00:00:%02x", number)],
        vendor: vendor,
        online: online,
        presenceReason: online ? PresenceReason(.answered, ["arp"]) : PresenceReason(.unanswered, ["arp"]),
        isImportant: important,
        bluetooth: ephemeral
            ? BluetoothFacts(address: "7a:00:00:00:00:01", addressType: .resolvablePrivate, isEphemeral: true) : nil
    )
}

extension Calendar {
    fileprivate static var utc: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }
}

@Suite struct AlertPolicyTests {
    @Test func aNewDeviceWithItsNameAlertsAtOnceWithIt() {
        var driver = PolicyDriver()
        let tv = makeDevice(1, name: "Living Room TV", vendor: "Acme")
        #expect(driver.note(.newDevice(tv)).map(\.title) == ["New device: Living Room TV"])
        let alerts = driver.publish([tv])
        #expect(alerts.isEmpty, "the insert is no second alert")
    }

    @Test func aNewDeviceWaitsForItsNameThenGoesWithIt() {
        var driver = PolicyDriver()
        let nameless = makeDevice(2, vendor: "Acme")
        #expect(driver.note(.newDevice(nameless)).isEmpty, "it waits for a name")
        #expect(driver.publish([nameless]).isEmpty)
        #expect(driver.policy.nextWake(at: driver.moment) == .seconds(30))
        #expect(driver.advance(by: .seconds(10)).isEmpty)
        let named = makeDevice(2, name: "printer", vendor: "Acme")
        let alerts = driver.publish([named])
        #expect(alerts.map(\.title) == ["New device: printer"])
        #expect(alerts.first?.fields["vendor"] == "Acme")
        #expect(alerts.first?.link == "/devices/\(named.id)")
        #expect(driver.advance(by: .seconds(60)).isEmpty, "once only")
    }

    @Test func aNewDeviceWithoutANameGoesWithWhatIsKnownWhenTheWaitEnds() {
        var driver = PolicyDriver()
        let nameless = makeDevice(3, vendor: "Acme")
        _ = driver.note(.newDevice(nameless))
        _ = driver.publish([nameless])
        #expect(driver.advance(by: .seconds(29)).isEmpty)
        let alerts = driver.advance(by: .seconds(1))
        #expect(alerts.map(\.title) == ["New device: 02:00:00:00:00:03"])
        #expect(alerts.first?.message == "02:00:00:00:00:03 (Acme, 10.0.0.3) joined the network.")
    }

    @Test func aDeviceWaitingForItsNameThatLeavesAlertsAtOnceUnlessItWasMergedIntoAnother() {
        var driver = PolicyDriver()
        let left = makeDevice(9, vendor: "Acme")
        let merged = makeDevice(10)
        _ = driver.note(.newDevice(left), .newDevice(merged))
        #expect(driver.publish([left, merged]).isEmpty)
        #expect(driver.note(.merged(merged.id, into: left.id)).isEmpty)
        #expect(driver.publish([]).map(\.device) == [left.id], "the one that left goes with what is known")
        #expect(driver.advance(by: .seconds(60)).isEmpty, "the merged one was never a device of its own")
    }

    @Test func anEphemeralBluetoothDeviceNeverAlerts() {
        let rules = AlertRules([AlertRule(device: nil, events: [.newDevice, .offline, .online])])
        var driver = PolicyDriver(rules: rules)
        let beacon = makeDevice(4, name: "beacon", ephemeral: true)
        #expect(driver.note(.newDevice(beacon)).isEmpty)
        #expect(driver.publish([beacon]).isEmpty)
        #expect(driver.publish([makeDevice(4, name: "beacon", online: false, ephemeral: true)]).isEmpty)
    }

    @Test func anImportantDeviceAlertsOfflineAndOnlineAPlainOneDoesNot() {
        let nas = makeDevice(5, name: "nas", important: true)
        let plain = makeDevice(6, name: "plain")
        var driver = PolicyDriver([nas, plain])
        let offline = driver.publish([
            makeDevice(5, name: "nas", online: false, important: true), makeDevice(6, name: "plain", online: false),
        ])
        #expect(offline.map(\.title) == ["nas is offline"])
        #expect(offline.first?.priority == .high)
        #expect(offline.first?.fields["reason"] == "unanswered asked=arp")
        _ = driver.advance(by: .seconds(301))
        let online = driver.publish([nas, plain])
        #expect(online.map(\.title) == ["nas is online"])
    }

    @Test func aFlapWithinTheWindowIsOneAlert() {
        let nas = makeDevice(5, name: "nas", important: true)
        let away = makeDevice(5, name: "nas", online: false, important: true)
        var driver = PolicyDriver([nas])
        #expect(driver.publish([away]).count == 1)
        _ = driver.advance(by: .seconds(60))
        #expect(driver.publish([nas]).isEmpty, "back within the window: folded into the offline alert")
        _ = driver.advance(by: .seconds(60))
        #expect(driver.publish([away]).isEmpty, "the state alerted already")
        _ = driver.advance(by: .seconds(200))
        #expect(driver.publish([nas]).map(\.title) == ["nas is online"], "after the window, a flip alerts again")
    }

    @Test func aDeviceBackWithinTheWindowAlertsOnlineWhenTheWindowEnds() {
        let nas = makeDevice(5, name: "nas", important: true)
        let away = makeDevice(5, name: "nas", online: false, important: true)
        var driver = PolicyDriver([nas])
        #expect(driver.publish([away]).map(\.title) == ["nas is offline"])
        _ = driver.advance(by: .seconds(60))
        #expect(driver.publish([nas]).isEmpty, "back within the window: folded")
        #expect(driver.nextWake == .seconds(240), "woken when the window ends")
        #expect(driver.advance(by: .seconds(239)).isEmpty)
        #expect(driver.advance(by: .seconds(1)).map(\.title) == ["nas is online"], "not left alerted as offline")
        #expect(driver.advance(by: .seconds(600)).isEmpty, "once")
    }

    @Test func aPersonsRuleOverridesPerDeviceAndTheDefault() {
        let nas = makeDevice(5, name: "nas", important: true)
        let plain = makeDevice(6, name: "plain")
        var rules = AlertRules([AlertRule(device: nil, events: [])])
        rules.set(AlertRule(device: plain.id, events: [.offline]))
        var driver = PolicyDriver([nas, plain], rules: rules)
        let alerts = driver.publish([
            makeDevice(5, name: "nas", online: false, important: true), makeDevice(6, name: "plain", online: false),
        ])
        #expect(alerts.map(\.title) == ["plain is offline"])
        #expect(driver.note(.newDevice(makeDevice(7, name: "new"))).isEmpty, "the default rule has no new-device")
        #expect(rules.all == [AlertRule(device: nil, events: []), AlertRule(device: plain.id, events: [.offline])])
    }

    @Test func scannerFaultsAlwaysAlertOnceEach() {
        var driver = PolicyDriver(rules: AlertRules([AlertRule(device: nil, events: [])]))
        let failing = HostStatus(sourceState: .failure(reason: "gone"))
        #expect(driver.publish([], host: failing).map(\.title) == ["Scanner fault: Avahi failure"])
        #expect(driver.publish([], host: HostStatus(sourceState: .unavailable(reason: "no bus"))).isEmpty)
        let limit = SystemLimit(
            name: "neighbour-table ipv4",
            value: 1024,
            setting: "net.ipv4.neigh.default.gc_thresh3=1024"
        )
        let full = HostStatus(sourceState: .running, limits: [limit])
        #expect(driver.publish([], host: full).map(\.title) == ["Scanner limit reached: neighbour-table ipv4"])
        #expect(driver.publish([], host: full).isEmpty)
    }

    @Test func devicelessNoticesAlertWhenTheDefaultRuleListsThem() {
        var quiet = PolicyDriver()
        #expect(quiet.note(.possibleEvilTwin(fields: ["ssid": "home", "bssid": "aa"])).isEmpty, "not out of the box")
        var driver = PolicyDriver(rules: AlertRules([AlertRule(device: nil, events: [.evilTwin, .addressConflict])]))
        let alerts = driver.note(
            .possibleEvilTwin(fields: ["ssid": "home", "bssid": "aa", "reason": "weaker-security"]),
            .addressConflict(fields: ["address": "10.0.0.1", "mac": "a", "mac.previous": "b"], isImportant: false)
        )
        #expect(alerts.map(\.event) == [.evilTwin, .addressConflict])
        #expect(alerts.first?.priority == .urgent)
    }

    @Test func anAlertDecidedInQuietHoursIsTakenAtOnceWithTheirEndAsItsNotBefore() {
        // 1_800_000_000 is 08:00 UTC; quiet from 07:00 to 09:00.
        let settings = AlertPolicy.Settings(quietHours: QuietHours("07:00-09:00"), calendar: .utc)
        let nas = makeDevice(5, name: "nas", important: true)
        var driver = PolicyDriver([nas], settings: settings)
        let end = driver.date + 3600
        let offline = driver.publish([makeDevice(5, name: "nas", online: false, important: true)])
        #expect(offline.map(\.title) == ["nas is offline"], "taken at once")
        #expect(driver.lastDecided.map(\.notBefore) == [end], "held by the outbox until the quiet hours end")
        #expect(driver.note(.newDevice(makeDevice(8, name: "phone"))).map(\.title) == ["New device: phone"])
        #expect(driver.lastDecided.map(\.notBefore) == [end])
        #expect(offline.first?.created == driver.date, "it keeps when it was decided")
        #expect(driver.policy.nextWake(at: driver.moment) == nil, "the policy holds nothing: no wake of its own")
        #expect(driver.policy.waitingCount == 0)
        driver.date += 3600  // 09:00: the quiet hours ended
        driver.now += .seconds(3600)
        #expect(driver.note(.newDevice(makeDevice(9, name: "tv"))).map(\.title) == ["New device: tv"])
        #expect(driver.lastDecided.map(\.notBefore) == [nil], "not held after them")
    }

    @Test(arguments: ["22:00-07:00", "00:00-23:59"])
    func quietHoursParseAndPrint(_ text: String) {
        #expect(QuietHours(text)?.description == text)
    }

    @Test(arguments: ["7:00-09:00", "07:00", "25:00-01:00", "07:00-07:00", "07:60-08:00", ""])
    func quietHoursRefuseMalformedText(_ text: String) {
        #expect(QuietHours(text) == nil)
    }

    @Test func quietHoursAcrossMidnight() {
        let hours = QuietHours("22:00-07:00")!
        let day = Date(timeIntervalSince1970: 1_800_000_000)  // 08:00 UTC
        #expect(hours.remaining(at: day, calendar: .utc) == nil)
        #expect(hours.remaining(at: day + 15 * 3600, calendar: .utc) == .seconds(8 * 3600), "23:00 → 07:00")
        #expect(hours.remaining(at: day + 20 * 3600, calendar: .utc) == .seconds(3 * 3600), "04:00 → 07:00")
    }
}
