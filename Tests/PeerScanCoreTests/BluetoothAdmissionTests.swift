// Bounded by what is in radio range: an advertiser is listed while heard until it proved to be a device (heard for
// --bluetooth-admit-after, paired, or touched by a person), a device nobody touched is forgotten after
// --bluetooth-forget-after, at most --bluetooth-max-devices are listed, and the IRK resolver's cache holds only the
// addresses held.

import Discovery
import PeerScanModel
import Testing

@testable import PeerScanCore

private let irk = IdentityResolvingKey(hex: "ec0234a357c8ad05341010a60a397d9b")!
private let stable = "c4:11:22:33:44:55"  // random static: top bits 11

/// An advertisement as bluetoothd reports an unpaired device (a temporary object) unless `paired`.
private func heard(
    _ address: String,
    _ type: BluetoothAddressType = .randomStatic,
    at time: Duration,
    paired: Bool = false
)
    -> BluetoothObservation
{
    .advertised(
        BluetoothAdvertisement(
            adapter: "hci0",
            address: address,
            addressType: type,
            name: nil,
            appearance: nil,
            manufacturerData: [],
            serviceUUIDs: [],
            rssi: -60,
            lastSeen: time,
            isTemporary: !paired
        )
    )
}

/// bluetoothd dropped the temporary object of `address` (TemporaryTimeout without an advertisement).
private func dropped(_ address: String) -> BluetoothObservation { .removed(adapter: "hci0", address: address) }

/// A random static address from a number (a flood's n-th address).
private func floodAddress(_ n: Int) -> String {
    let octets = [0xC0 | (n >> 24 & 0x3F), n >> 16 & 0xFF, n >> 8 & 0xFF, n & 0xFF, 0x5A, 0xA5]
    return octets.map { String(format: "%02x", $0) }.joined(separator: ":")
}

private func makeTable(maxDevices: Int = 1000, keys: [DeviceID: IdentityResolvingKey] = [:]) -> DeviceTable {
    DeviceTable(
        presence: DeviceTable.Presence(offlineAfter: .seconds(60), forgetAfter: .seconds(7 * 86400)),
        bluetooth: BluetoothSettings(
            away: .seconds(120),
            admitAfter: .seconds(1200),
            forgetAfter: .seconds(3600),
            maxDevices: maxDevices,
            keys: keys
        )
    )
}

private func isBound(_ changes: [IdentityChange]) -> Bool {
    changes.contains { if case .bound = $0 { true } else { false } }
}

@Suite struct BluetoothAdmissionTests {
    @Test func anIdentityAddressIsListedWhileHeardThenKeptOnceHeardForTheAdmissionTime() throws {
        var table = makeTable()
        let id = DeviceID.make(bluetoothAddress: stable)
        table.observe(bluetooth: heard(stable, at: .zero), now: .zero)
        var (changes, events) = table.takeChanges(now: .zero)
        #expect(changes.first?.device?.bluetooth?.isEphemeral == true && changes.first?.id == id)
        #expect(events.isEmpty, "no `new device` for what may be a passer-by")
        #expect(!isBound(table.takeIdentityChanges()), "nothing for the registry")
        // bluetoothd holds its object (it keeps advertising, unchanged): judged again at the admission time.
        #expect(table.nextDeadline() == .seconds(1200))
        (changes, events) = table.takeChanges(now: .seconds(1200))
        let kept = try #require(changes.first?.device)
        #expect(kept.id == id && kept.bluetooth?.isEphemeral == false && kept.online)
        #expect(events.count == 1 && { if case .appeared = events[0] { true } else { false } }())
        #expect(table.takeIdentityChanges() == [.bound(.bluetooth(stable), id)])
        // Kept now: offline after it goes, not removed.
        table.observe(bluetooth: dropped(stable), now: .seconds(1300))
        _ = table.takeChanges(now: .seconds(1300))
        #expect(table.takeChanges(now: .seconds(1420)).changes.first?.device?.online == false)
    }

    @Test func aSilenceOfTheAwayTimeStartsTheRunAnew() {
        var table = makeTable()
        table.observe(bluetooth: heard(stable, at: .zero), now: .zero)
        table.observe(bluetooth: dropped(stable), now: .seconds(30))
        _ = table.takeChanges(now: .seconds(30))
        let gone = table.takeChanges(now: .seconds(150))
        #expect(gone.changes.count == 1 && gone.changes[0].device == nil && gone.events.isEmpty, "gone, no line")
        table.observe(bluetooth: heard(stable, at: .seconds(1000)), now: .seconds(1000))
        _ = table.takeChanges(now: .seconds(1000))
        #expect(table.takeChanges(now: .seconds(1200)).changes.isEmpty, "the run began at 1,000 s")
        #expect(table.takeChanges(now: .seconds(2200)).changes.first?.device?.bluetooth?.isEphemeral == false)
    }

    @Test func pairedNamedOrMergedDevicesAreKeptAtOnce() throws {
        var table = makeTable()
        let paired = "c4:00:00:00:00:01"
        let named = "c4:00:00:00:00:02"
        table.observe(bluetooth: heard(paired, at: .zero, paired: true), now: .zero)
        table.observe(bluetooth: heard(named, at: .zero), now: .zero)
        let first = table.takeChanges(now: .zero).changes
        #expect(
            first.first { $0.id == DeviceID.make(bluetoothAddress: paired) }?.device?.bluetooth?.isEphemeral == false
        )
        let namedID = DeviceID.make(bluetoothAddress: named)
        #expect(first.first { $0.id == namedID }?.device?.bluetooth?.isEphemeral == true)
        _ = table.takeIdentityChanges()
        #expect(table.setLabel(DeviceLabelEdit(name: "Kitchen scale"), of: namedID) != nil)
        let (changes, events) = table.takeChanges(now: .seconds(1))
        #expect(changes.first?.device?.bluetooth?.isEphemeral == false && changes.first?.device?.assignedName != nil)
        #expect(events.count == 1)
        #expect(table.takeIdentityChanges() == [.bound(.bluetooth(named), namedID)])
    }

    @Test func aMergeAdmitsADeviceNotKeptYetAndRefusesAnEphemeralOne() throws {
        var table = makeTable()
        let mac = "3c:22:fb:44:55:66"
        table.updateNeighbour(
            Neighbour(address: "10.0.0.5", interface: "lan0", macAddress: mac, state: .reachable, lastConfirmed: nil),
            now: .zero
        )
        let privateAddress = try IRKResolver.makeAddress(key: irk, prand: 0x12_3456)
        table.observe(bluetooth: heard(stable, at: .zero), now: .zero)
        table.observe(bluetooth: heard(privateAddress, .resolvablePrivate, at: .zero), now: .zero)
        _ = table.takeChanges(now: .zero)
        let lan = DeviceID.make(macAddress: mac)
        let ephemeral = DeviceID.make(bluetoothAddress: privateAddress)
        #expect(throws: DeviceEditError(.ephemeral, id: ephemeral)) { try table.merge([ephemeral], into: lan) }
        try table.merge([DeviceID.make(bluetoothAddress: stable)], into: lan)
        _ = table.takeChanges(now: .seconds(1))
        #expect(table.identities.keys(of: lan).contains(.bluetooth(stable)), "the merge did what it said")
    }

    @Test func anAbsentDeviceKnownByItsIRKAloneCanBeLabelledAndForgotten() throws {
        let id = DeviceID.make(hostName: "phone.local")
        var table = makeTable(keys: [id: irk])
        #expect(table.setLabel(DeviceLabelEdit(name: "Phone"), of: id) != nil)
        try table.setIRK(irk, for: id)
        let known = table.forget(id, now: .zero)
        #expect(known, "it was known: by its key")
        let irkChanges = table.takeIRKChanges()
        #expect(irkChanges.count == 1 && irkChanges[id] == .some(nil), "and its key is gone")
    }

    @Test func aKeptDeviceNobodyTouchedIsForgottenAfterTheBluetoothForgetTime() throws {
        var table = makeTable()
        let other = "c4:00:00:00:00:09"
        for address in [stable, other] { table.observe(bluetooth: heard(address, at: .zero), now: .zero) }
        _ = table.takeChanges(now: .zero)
        _ = table.takeChanges(now: .seconds(1200))  // both admitted
        #expect(table.setLabel(DeviceLabelEdit(isImportant: true), of: DeviceID.make(bluetoothAddress: other)) != nil)
        for address in [stable, other] { table.observe(bluetooth: dropped(address), now: .seconds(1200)) }
        _ = table.takeChanges(now: .seconds(1320))
        let (changes, events) = table.takeChanges(now: .seconds(1200 + 3600))
        #expect(changes.map(\.id) == [DeviceID.make(bluetoothAddress: stable)] && changes[0].device == nil)
        #expect(events.count == 1 && { if case .forgotten = events[0] { true } else { false } }())
        #expect(table.takeIdentityChanges().contains(.forgotten(DeviceID.make(bluetoothAddress: stable))))
        #expect(table.deviceCount == 1, "the one a person marked stays until --forget-after")
    }

    @Test func aFloodOfNewAddressesStaysWithinTheCapAndLeavesAStableAdvertiserBe() throws {
        var table = makeTable(maxDevices: 50)
        table.observe(bluetooth: heard(stable, at: .zero), now: .zero)
        var lines: [DeviceTable.Event] = []
        // 2,000 addresses, 4 a second, each heard once (a "BLE spam" firmware), for 500 s, each object dropped by
        // bluetoothd 30 s later (TemporaryTimeout); the stable one keeps going.
        for n in 0..<2000 {
            let now = Duration.milliseconds(250 * n)
            table.observe(bluetooth: heard(floodAddress(n), at: now), now: now)
            if n >= 120 { table.observe(bluetooth: dropped(floodAddress(n - 120)), now: now) }
            if n % 40 == 0 { table.observe(bluetooth: heard(stable, at: now), now: now) }
            lines += table.takeChanges(now: now).events
            #expect(table.deviceCount <= 50)
        }
        #expect(lines.isEmpty, "no line per address")
        #expect(!isBound(table.takeIdentityChanges()), "nothing for the registry")
        #expect(table.bluetoothFill.isFull && table.bluetoothFill.count > 50 - table.evictionBatch)
        let now = Duration.seconds(1200)
        table.observe(bluetooth: heard(stable, at: now), now: now)
        let (changes, events) = table.takeChanges(now: now)
        let kept = try #require(changes.first { $0.id == DeviceID.make(bluetoothAddress: stable) }?.device)
        #expect(kept.bluetooth?.isEphemeral == false, "the stable advertiser was never evicted, and is kept")
        #expect(events.count == 1, "\(events)")
    }

    @Test func theCapTakesTheDeviceAbsentLongestFirstAndNeverOneAPersonTouched() throws {
        var table = makeTable(maxDevices: 3)
        let a = "c4:00:00:00:00:0a"
        let b = "c4:00:00:00:00:0b"
        for address in [a, b] { table.observe(bluetooth: heard(address, at: .zero, paired: true), now: .zero) }
        _ = table.takeChanges(now: .zero)
        #expect(table.setLabel(DeviceLabelEdit(name: "Mine"), of: DeviceID.make(bluetoothAddress: a)) != nil)
        table.observe(bluetooth: heard(floodAddress(1), at: .seconds(1)), now: .seconds(1))
        _ = table.takeChanges(now: .seconds(1))
        // Full: a new one takes the newest not kept (the flood's), never the paired or the named device.
        table.observe(bluetooth: heard(floodAddress(2), at: .seconds(2)), now: .seconds(2))
        let (changes, _) = table.takeChanges(now: .seconds(2))
        #expect(
            Set(changes.filter { $0.device == nil }.map(\.id)) == [DeviceID.make(bluetoothAddress: floodAddress(1))]
        )
        #expect(table.deviceCount == 3)
    }

    @Test func aKeptDeviceThatWentQuietIsNotPushedOutByAFlood() throws {
        var table = makeTable(maxDevices: 4)
        table.observe(bluetooth: heard(stable, at: .zero), now: .zero)
        _ = table.takeChanges(now: .zero)
        _ = table.takeChanges(now: .seconds(1200))  // admitted
        table.observe(bluetooth: dropped(stable), now: .seconds(1200))
        _ = table.takeChanges(now: .seconds(1200))
        #expect(table.takeChanges(now: .seconds(1320)).changes.first?.device?.online == false, "quiet: offline")
        // A flood while it is absent: the flood's own addresses make room for each other.
        for n in 0..<20 {
            let now = Duration.seconds(1320 + n)
            table.observe(bluetooth: heard(floodAddress(n), at: now), now: now)
            let removed = table.takeChanges(now: now).changes.filter { $0.device == nil }.map(\.id)
            #expect(!removed.contains(DeviceID.make(bluetoothAddress: stable)))
        }
        #expect(table.deviceCount == 4 && table.bluetoothFill.isFull)
        #expect(!table.takeIdentityChanges().contains(.forgotten(DeviceID.make(bluetoothAddress: stable))))
    }

    @Test func theResolversCacheHoldsOnlyTheAddressesHeld() throws {
        let owner = DeviceID.make(hostName: "phone.local")
        var table = makeTable(maxDevices: 20, keys: [owner: irk])
        for n in 0..<500 {
            // Private addresses no key resolves (another phone's rotations, a flood of them).
            let address = try IRKResolver.makeAddress(
                key: IdentityResolvingKey(hex: String(repeating: "ab", count: 16))!,
                prand: UInt32(n)
            )
            let now = Duration.seconds(n)
            table.observe(bluetooth: heard(address, .resolvablePrivate, at: now), now: now)
            _ = table.takeChanges(now: now)
        }
        #expect(table.bluetooth.resolver.cachedCount <= 20)
        table.observe(bluetooth: .adapters([]), now: .seconds(500))  // the controller went: every object with it
        _ = table.takeChanges(now: .seconds(500))
        _ = table.takeChanges(now: .seconds(10_000))
        #expect(table.bluetooth.resolver.cachedCount == 0 && table.deviceCount == 0)
    }
}

@Suite struct DeadlineQueueTests {
    @Test func dueKeysComeEarliestFirstAndAMovedDeadlineCountsOnce() {
        var queue = DeadlineQueue<String>()
        queue["a"] = .seconds(30)
        queue["b"] = .seconds(10)
        queue["c"] = .seconds(20)
        queue["b"] = .seconds(40)  // moved: its old entry is stale
        queue["c"] = nil
        #expect(queue.next() == .seconds(30))
        #expect(queue.popDue(now: .seconds(35)) == ["a"])
        #expect(queue.popDue(now: .seconds(35)).isEmpty)
        queue["b"] = .seconds(10)
        queue["b"] = .seconds(40)
        queue["b"] = .seconds(10)  // back to an entry pushed before: due once
        #expect(queue.popDue(now: .seconds(100)) == ["b"])
        #expect(queue.next() == nil && queue.count == 0)
    }

    @Test func aKeyMovedOverAndOverKeepsTheHeapSmall() {
        var queue = DeadlineQueue<Int>()
        for step in 0..<10_000 { queue[step % 10] = .milliseconds(step) }
        #expect(queue.count == 10)
        #expect(queue.heapCount <= 2 * 10 + 64 + 1)
        #expect(queue.popDue(now: .seconds(100)).count == 10)
    }
}

@Suite struct BluetoothCapLimitTests {
    @Test func theBluetoothCapIsALimitOnceFull() {
        let check = SystemLimitCheck(settings: SystemLimitSettings())
        var counts = SystemLimitCounts(bluetoothDevices: .init(count: 1000, maximum: 1000, isFull: false))
        #expect(check.reached(counts).isEmpty, "listed up to the cap: not reached until one more comes")
        counts.bluetoothDevices?.isFull = true
        #expect(
            check.reached(counts)
                == [SystemLimit(name: "bluetooth-devices", value: 1000, setting: "--bluetooth-max-devices=1000")]
        )
    }
}
