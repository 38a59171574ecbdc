import Discovery
import PeerScanCore
import PeerScanModel
import Testing

private let macA = "00:00:0c:11:22:33"
private let macB = "3c:22:fb:44:55:66"
private let randomMAC = "02:aa:bb:cc:dd:ee"

/// A TV announced over mDNS: shown as "TV", with one AirPlay service.
private func airPlayTV(_ hostName: String, addresses: [String]) -> AnnouncedHost {
    makeMDNSHost(
        hostName,
        addresses: addresses,
        displayName: "TV",
        service: DeviceService(name: "TV", type: "_airplay._tcp", domain: "local", port: 7000, txt: [])
    )
}

private let vendors: @Sendable (String) -> String? = { mac in
    mac.hasPrefix("00:00:0c") ? "Cisco Systems, Inc" : mac.hasPrefix("3c:22:fb") ? "Apple, Inc." : nil
}

private let presence = DeviceTable.Presence(offlineAfter: .seconds(60), forgetAfter: .seconds(600))

/// The presence policy without forced probes, as the Wi-Fi-like hosts' test runs it: a 20 s window and the stale grace
/// of a 5 s probe interval.
private let unprivilegedWindow = DeviceTable.Presence(
    offlineAfter: .seconds(20),
    forgetAfter: .seconds(600),
    staleGrace: .seconds(14)
)

@Suite struct DeviceTableTests {
    @Test func aNeighbourOnlyHostIsOneDeviceKeyedByItsMAC() throws {
        var table = DeviceTable(presence: presence, vendorOf: vendors)
        table.updateNeighbour(makeNeighbour("10.0.0.5", macA), now: .seconds(1))
        table.updateNeighbour(makeNeighbour("fd00::5", macA), now: .seconds(1))
        let (changes, events) = table.takeChanges(now: .seconds(1))
        #expect(changes.count == 1)
        let device = try #require(changes.first?.device)
        #expect(device.id == DeviceID.make(macAddress: macA))
        #expect(device.hostName == nil && device.displayName == nil)
        #expect(device.addresses == ["10.0.0.5", "fd00::5"])
        #expect(device.macAddresses == [macA])
        #expect(device.vendor == "Cisco Systems, Inc")
        #expect(device.online)
        #expect(events == [.appeared(device)])
    }

    @Test func anEntryNotAnsweringTeachesNoDevice() {
        var table = DeviceTable(presence: presence, vendorOf: vendors)
        table.updateNeighbour(makeNeighbour("10.0.0.6", nil, .incomplete), now: .seconds(100))
        table.updateNeighbour(makeNeighbour("10.0.0.7", nil, .failed), now: .seconds(100))
        // Stale, last confirmed long ago: the kernel has not verified it lately (its host may be long gone).
        table.updateNeighbour(makeNeighbour("10.0.0.8", macB, .stale, confirmed: .seconds(10)), now: .seconds(100))
        #expect(table.takeChanges(now: .seconds(100)).changes.isEmpty)
        // Verified: now it is a device.
        table.updateNeighbour(makeNeighbour("10.0.0.8", macB, .reachable, confirmed: .seconds(100)), now: .seconds(100))
        #expect(table.takeChanges(now: .seconds(100)).changes.count == 1)
    }

    @Test func anMDNSHostTakesTheMACsOfItsAddressesAndTheirOtherAddresses() throws {
        var table = DeviceTable(presence: presence, vendorOf: vendors)
        table.updateMDNSHost(
            hostName: "tv.local",
            host: airPlayTV("tv.local", addresses: ["10.0.0.5"]),
            now: .zero
        )
        table.updateNeighbour(makeNeighbour("10.0.0.5", macB), now: .zero)
        table.updateNeighbour(makeNeighbour("fd00::5", macB), now: .zero)
        let (changes, _) = table.takeChanges(now: .zero)
        #expect(changes.count == 1, "one device, not an mDNS one and a MAC one")
        let device = try #require(changes.first?.device)
        #expect(device.id == DeviceID.make(hostName: "tv.local"))
        #expect(device.macAddresses == [macB])
        #expect(device.vendor == "Apple, Inc.")
        #expect(device.addresses == ["10.0.0.5", "fd00::5"])
    }

    @Test func aMACOnlyDeviceThatStartsAnnouncingMDNSKeepsItsIdentifier() throws {
        var table = DeviceTable(presence: presence, vendorOf: vendors)
        table.updateNeighbour(makeNeighbour("10.0.0.5", macB), now: .zero)
        let macDevice = try #require(table.takeChanges(now: .zero).changes.first?.device)
        #expect(macDevice.id == DeviceID.make(macAddress: macB))
        table.updateMDNSHost(
            hostName: "tv.local",
            host: airPlayTV("tv.local", addresses: ["10.0.0.5"]),
            now: .zero
        )
        let (changes, events) = table.takeChanges(now: .zero)
        #expect(changes.map(\.id) == [macDevice.id], "one item, updated")
        let named = try #require(changes.first?.device)
        #expect(named.hostName == "tv.local" && named.macAddresses == [macB])
        #expect(events.isEmpty, "\(events)")
        #expect(table.identities.id(for: .hostName("tv.local")) == macDevice.id)
        // And it stays so: its services going and coming back change nothing of its identity.
        table.updateMDNSHost(hostName: "tv.local", host: nil, now: .seconds(1))
        table.updateMDNSHost(
            hostName: "tv.local",
            host: airPlayTV("tv.local", addresses: ["10.0.0.5"]),
            now: .seconds(2)
        )
        #expect(table.takeChanges(now: .seconds(2)).changes.allSatisfy { $0.id == macDevice.id })
    }

    @Test func aKnownHostThatTurnsOutToOwnAMACOnlyDeviceAbsorbsIt() throws {
        var table = DeviceTable(presence: presence, vendorOf: vendors)
        table.updateMDNSHost(
            hostName: "tv.local",
            host: airPlayTV("tv.local", addresses: ["fd00::5"]),
            now: .zero
        )
        let hostID = try #require(table.takeChanges(now: .zero).changes.first?.id)
        #expect(hostID == DeviceID.make(hostName: "tv.local"))
        table.updateNeighbour(makeNeighbour("10.0.0.5", macB), now: .zero)
        let macDevice = try #require(table.takeChanges(now: .zero).changes.first?.device)
        // The host announces the address the MAC-only device answers on: the two are one.
        table.updateMDNSHost(
            hostName: "tv.local",
            host: airPlayTV("tv.local", addresses: ["10.0.0.5", "fd00::5"]),
            now: .seconds(1)
        )
        let (changes, events) = table.takeChanges(now: .seconds(1))
        #expect(Set(changes.map(\.id)) == [hostID, macDevice.id])
        #expect(changes.first { $0.id == macDevice.id }?.device == nil)
        #expect(events.contains(.merged(macDevice, into: hostID)))
        #expect(table.identities.id(for: .macAddress(macB)) == hostID)
        let identityChanges = table.takeIdentityChanges()
        #expect(identityChanges.contains(.merged(macDevice.id, into: hostID)))
    }

    @Test func aSilentHostGoesOfflineAfterTheWindowAndIsForgottenLater() throws {
        var table = DeviceTable(presence: presence, vendorOf: vendors)
        table.updateNeighbour(makeNeighbour("10.0.0.5", macA, confirmed: .seconds(10)), now: .seconds(10))
        _ = table.takeChanges(now: .seconds(10))
        // The kernel's probes failed at 40 s; it last confirmed the host at 12 s.
        table.updateNeighbour(makeNeighbour("10.0.0.5", nil, .failed, confirmed: .seconds(12)), now: .seconds(40))
        #expect(table.takeChanges(now: .seconds(40)).changes.isEmpty, "still within --offline-after")
        #expect(table.takeChanges(now: .seconds(71)).changes.isEmpty)
        let (offline, events) = table.takeChanges(now: .seconds(72))
        let device = try #require(offline.first?.device)
        #expect(!device.online)
        #expect(device.addresses == ["10.0.0.5"] && device.macAddresses == [macA], "what it was known by stays")
        #expect(events == [.offline(device)])
        #expect(device.presenceReason == PresenceReason(.unanswered, ["arp"]), "its ARP probes went unanswered")
        #expect(table.takeChanges(now: .seconds(611)).changes.isEmpty)
        let (forgotten, forgetEvents) = table.takeChanges(now: .seconds(612))
        #expect(forgotten.count == 1 && forgotten[0].device == nil)
        #expect(forgetEvents == [.forgotten(device)])
    }

    @Test func anEntryThatTurnsStaleAnswersUntilTheKernelVerifiedItThoughItsReachableTimeOutlastsTheWindow() {
        // Without CAP_NET_ADMIN the kernel keeps an entry reachable for 15–45 s and verifies it only once it is stale.
        var table = DeviceTable(presence: unprivilegedWindow, vendorOf: vendors)
        table.updateNeighbour(makeNeighbour("10.0.0.5", macA, confirmed: .zero), now: .zero)
        _ = table.takeChanges(now: .zero)
        table.updateNeighbour(makeNeighbour("10.0.0.5", macA, .stale, confirmed: .zero), now: .seconds(44))
        #expect(table.takeChanges(now: .seconds(44)).changes.isEmpty, "stale 44 s after its confirmation: not offline")
        table.updateNeighbour(makeNeighbour("10.0.0.5", macA, .delay, confirmed: .zero), now: .seconds(46))
        table.updateNeighbour(makeNeighbour("10.0.0.5", macA, .reachable, confirmed: .seconds(51)), now: .seconds(51))
        #expect(table.takeChanges(now: .seconds(51)).changes.isEmpty, "verified: never offline")
        // Stale again (the kernel held it reachable until 90 s), and nothing verifies it: offline once the window
        // from then is over.
        table.updateNeighbour(makeNeighbour("10.0.0.5", macA, .stale, confirmed: .seconds(51)), now: .seconds(90))
        #expect(table.takeChanges(now: .seconds(109)).changes.isEmpty)
        table.updateNeighbour(makeNeighbour("10.0.0.5", macA, .stale, confirmed: .seconds(51)), now: .seconds(110))
        #expect(table.takeChanges(now: .seconds(110)).changes.first?.device?.online == false)
    }

    @Test func aHostThatMissesTheVerificationAfterItsReachableTimeHasTheWindowFromThenToAnswer() {
        // A phone dozing in Wi-Fi power save: confirmed at 0 s, held reachable by the kernel until 44 s (no one
        // asked it meanwhile), asleep when the kernel verifies it; it answers the round after it woke.
        var table = DeviceTable(presence: unprivilegedWindow, vendorOf: vendors)
        table.updateNeighbour(makeNeighbour("10.0.0.5", macA, confirmed: .zero), now: .zero)
        _ = table.takeChanges(now: .zero)
        table.updateNeighbour(makeNeighbour("10.0.0.5", macA, .stale, confirmed: .zero), now: .seconds(44))
        table.updateNeighbour(makeNeighbour("10.0.0.5", macA, .probe, confirmed: .zero), now: .seconds(52))
        table.updateNeighbour(makeNeighbour("10.0.0.5", nil, .failed, confirmed: .zero), now: .seconds(55))
        #expect(table.takeChanges(now: .seconds(55)).changes.isEmpty, "its verification failed 11 s after it was stale")
        table.updateNeighbour(makeNeighbour("10.0.0.5", nil, .incomplete, confirmed: .zero), now: .seconds(60))
        table.updateNeighbour(makeNeighbour("10.0.0.5", nil, .failed, confirmed: .zero), now: .seconds(63))
        #expect(table.takeChanges(now: .seconds(63)).changes.isEmpty)
        table.updateNeighbour(makeNeighbour("10.0.0.5", macA, .reachable, confirmed: .seconds(66)), now: .seconds(66))
        let (changes, events) = table.takeChanges(now: .seconds(66))
        #expect(changes.isEmpty && events.isEmpty, "never offline")
        // Had it not answered, it would have been offline the window after it was stale.
        table.updateNeighbour(makeNeighbour("10.0.0.5", macA, .stale, confirmed: .seconds(66)), now: .seconds(100))
        table.updateNeighbour(makeNeighbour("10.0.0.5", nil, .failed, confirmed: .seconds(66)), now: .seconds(111))
        #expect(table.takeChanges(now: .seconds(119)).changes.isEmpty)
        #expect(table.takeChanges(now: .seconds(120)).changes.first?.device?.online == false)
    }

    @Test func theEndOfAReachableTimeIsNoAnswerForAnAddressConflict() {
        // Confirmed at 0 s, reachable until the kernel's timer at 44 s; another MAC address answers for the address at
        // 61 s: the first one last answered 61 s ago, past the 60 s conflict window — the address moved.
        var table = DeviceTable(presence: presence, vendorOf: vendors)
        table.updateNeighbour(makeNeighbour("10.0.0.5", macA, confirmed: .zero), now: .zero)
        table.updateNeighbour(makeNeighbour("10.0.0.5", macA, .stale, confirmed: .zero), now: .seconds(44))
        _ = table.takeChanges(now: .seconds(44))
        table.updateNeighbour(makeNeighbour("10.0.0.5", macB, confirmed: .seconds(61)), now: .seconds(61))
        let events = table.takeChanges(now: .seconds(61)).events
        #expect(!events.contains { if case .addressConflict = $0 { true } else { false } })
        #expect(events.contains { if case .macChanged = $0 { true } else { false } })
    }

    @Test func aStaleEntryFirstSeenStaleCountsOnlyByItsConfirmation() {
        var table = DeviceTable(presence: unprivilegedWindow, vendorOf: vendors)
        table.updateNeighbour(makeNeighbour("10.0.0.8", macB, .stale, confirmed: .seconds(10)), now: .seconds(100))
        #expect(table.takeChanges(now: .seconds(100)).changes.isEmpty, "left over from a host long gone: no device")
    }

    @Test func oneFailedRoundWithinTheWindowNeverFlaps() {
        var table = DeviceTable(presence: presence, vendorOf: vendors)
        table.updateNeighbour(makeNeighbour("10.0.0.5", macA, confirmed: .seconds(0)), now: .seconds(0))
        _ = table.takeChanges(now: .seconds(0))
        table.updateNeighbour(makeNeighbour("10.0.0.5", nil, .failed, confirmed: .seconds(0)), now: .seconds(30))
        #expect(table.takeChanges(now: .seconds(30)).changes.isEmpty)
        table.updateNeighbour(makeNeighbour("10.0.0.5", macA, .reachable, confirmed: .seconds(45)), now: .seconds(45))
        let (changes, events) = table.takeChanges(now: .seconds(45))
        #expect(changes.isEmpty && events.isEmpty, "no offline, no online: nothing happened to the device")
        #expect(table.takeChanges(now: .seconds(100)).changes.isEmpty, "it answered at 45 s")
    }

    @Test func anOfflineDeviceThatAnswersIsOnlineAtOnce() throws {
        var table = DeviceTable(presence: presence, vendorOf: vendors)
        table.updateNeighbour(makeNeighbour("10.0.0.5", macA, confirmed: .zero), now: .zero)
        _ = table.takeChanges(now: .zero)
        table.updateNeighbour(makeNeighbour("10.0.0.5", nil, .failed, confirmed: .zero), now: .seconds(30))
        _ = table.takeChanges(now: .seconds(61))
        table.updateNeighbour(makeNeighbour("10.0.0.5", macA, .reachable, confirmed: .seconds(90)), now: .seconds(90))
        let (changes, events) = table.takeChanges(now: .seconds(90))
        let device = try #require(changes.first?.device)
        #expect(device.online)
        #expect(events == [.online(device)])
    }

    @Test func aSecondMACAnsweringForAnAddressIsAConflict() throws {
        var table = DeviceTable(presence: presence, vendorOf: vendors)
        table.updateNeighbour(makeNeighbour("10.0.0.5", macA, confirmed: .seconds(10)), now: .seconds(10))
        _ = table.takeChanges(now: .seconds(10))
        table.updateNeighbour(makeNeighbour("10.0.0.5", macB, confirmed: .seconds(20)), now: .seconds(20))
        let (_, events) = table.takeChanges(now: .seconds(20))
        #expect(events.contains(.addressConflict(address: "10.0.0.5", macAddress: macB, previousMACAddress: macA)))
        // Flip-flopping back within the window is not logged again.
        table.updateNeighbour(makeNeighbour("10.0.0.5", macA, confirmed: .seconds(25)), now: .seconds(25))
        #expect(
            !table.takeChanges(now: .seconds(25)).events.contains {
                if case .addressConflict = $0 { true } else { false }
            }
        )
    }

    @Test func anAddressMovingFromAQuietMACIsAMACChange() throws {
        var table = DeviceTable(presence: presence, vendorOf: vendors)
        table.updateMDNSHost(
            hostName: "nas.local",
            host: airPlayTV("nas.local", addresses: ["10.0.0.9"]),
            now: .zero
        )
        table.updateNeighbour(makeNeighbour("10.0.0.9", macA, confirmed: .zero), now: .zero)
        _ = table.takeChanges(now: .zero)
        table.updateNeighbour(makeNeighbour("10.0.0.9", macB, confirmed: .seconds(300)), now: .seconds(300))
        let (changes, events) = table.takeChanges(now: .seconds(300))
        #expect(
            events.contains(
                .macChanged(
                    address: "10.0.0.9",
                    macAddress: macB,
                    previousMACAddress: macA,
                    device: DeviceID.make(hostName: "nas.local")
                )
            )
        )
        #expect(changes.first { $0.id == DeviceID.make(hostName: "nas.local") }?.device?.macAddresses == [macB])
    }

    @Test func aLocallyAdministeredMACHasNoVendor() throws {
        var table = DeviceTable(presence: presence, vendorOf: vendors)
        table.updateNeighbour(makeNeighbour("10.0.0.7", randomMAC), now: .zero)
        let device = try #require(table.takeChanges(now: .zero).changes.first?.device)
        #expect(device.vendor == nil && device.macAddresses == [randomMAC])
    }

    @Test func immediatePresenceRemovesAnMDNSDeviceWithItsLastService() {
        var table = DeviceTable()
        table.updateMDNSHost(
            hostName: "tv.local",
            host: airPlayTV("tv.local", addresses: ["10.0.0.5"]),
            now: .zero
        )
        #expect(table.takeChanges(now: .zero).changes.count == 1)
        table.updateMDNSHost(hostName: "tv.local", host: nil, now: .seconds(1))
        let (changes, _) = table.takeChanges(now: .seconds(1))
        #expect(changes.count == 1 && changes[0].device == nil, "gone in the same take, as an mDNS browser does")
    }

    @Test func anMDNSDeviceThatLeftButStillAnswersStaysOnlineWithoutServices() throws {
        var table = DeviceTable(presence: presence, vendorOf: vendors)
        table.updateMDNSHost(
            hostName: "tv.local",
            host: airPlayTV("tv.local", addresses: ["10.0.0.5"]),
            now: .zero
        )
        table.updateNeighbour(makeNeighbour("10.0.0.5", macB), now: .zero)
        _ = table.takeChanges(now: .zero)
        table.updateMDNSHost(hostName: "tv.local", host: nil, now: .seconds(5))
        let device = try #require(table.takeChanges(now: .seconds(5)).changes.first?.device)
        #expect(device.services.isEmpty && device.online && device.displayName == "TV")
        #expect(table.takeChanges(now: .seconds(500)).changes.isEmpty, "its neighbour entry still answers")
    }

    @Test func scanningOffRemovesEverything() {
        var table = DeviceTable(presence: presence, vendorOf: vendors)
        table.updateNeighbour(makeNeighbour("10.0.0.5", macA), now: .zero)
        _ = table.takeChanges(now: .zero)
        table.removeAll()
        let (changes, _) = table.takeChanges(now: .zero)
        #expect(changes.count == 1 && changes[0].device == nil)
        #expect(table.deviceCount == 0)
    }

    @Test func aReplacedTableDropsEntriesTheKernelForgotButKeepsTheirAddresses() throws {
        var table = DeviceTable(presence: presence, vendorOf: vendors)
        table.replaceNeighbours([makeNeighbour("10.0.0.5", macA, confirmed: .zero)], now: .zero)
        _ = table.takeChanges(now: .zero)
        table.replaceNeighbours([], now: .seconds(10))
        #expect(table.takeChanges(now: .seconds(10)).changes.isEmpty)
        let device = try #require(table.takeChanges(now: .seconds(60)).changes.first?.device)
        #expect(!device.online && device.addresses == ["10.0.0.5"])
    }
}

@Suite struct DeviceTableAddressTests {
    @Test func anAddressTheHostDroppedLeavesWhenItAnswersOnAnotherOne() throws {
        var table = DeviceTable(presence: presence, vendorOf: vendors)
        table.updateNeighbour(makeNeighbour("10.0.0.5", macA, confirmed: .seconds(1)), now: .seconds(1))
        table.updateNeighbour(makeNeighbour("10.0.0.6", macA, confirmed: .seconds(1)), now: .seconds(1))
        _ = table.takeChanges(now: .seconds(1))
        table.updateNeighbour(makeNeighbour("10.0.0.6", nil, .failed, confirmed: .seconds(1)), now: .seconds(10))
        #expect(table.takeChanges(now: .seconds(10)).changes.isEmpty, "failed alone: the host may be silent")
        table.updateNeighbour(makeNeighbour("10.0.0.5", macA, confirmed: .seconds(12)), now: .seconds(12))
        let device = try #require(table.takeChanges(now: .seconds(12)).changes.first?.device)
        #expect(device.addresses == ["10.0.0.5"] && device.online)
    }

    @Test func aSilentHostKeepsAllItsAddresses() throws {
        var table = DeviceTable(presence: presence, vendorOf: vendors)
        table.updateNeighbour(makeNeighbour("10.0.0.5", macA, confirmed: .seconds(1)), now: .seconds(1))
        table.updateNeighbour(makeNeighbour("10.0.0.6", macA, confirmed: .seconds(1)), now: .seconds(1))
        _ = table.takeChanges(now: .seconds(1))
        table.updateNeighbour(makeNeighbour("10.0.0.6", nil, .failed, confirmed: .seconds(1)), now: .seconds(10))
        // The other entry is verified later, without a new confirmation: it fails too.
        table.updateNeighbour(makeNeighbour("10.0.0.5", macA, .probe, confirmed: .seconds(1)), now: .seconds(11))
        table.updateNeighbour(makeNeighbour("10.0.0.5", nil, .failed, confirmed: .seconds(1)), now: .seconds(14))
        let device = try #require(table.takeChanges(now: .seconds(61)).changes.first?.device)
        #expect(device.addresses == ["10.0.0.5", "10.0.0.6"] && !device.online)
    }
}

@Suite struct DeviceTableReturnTests {
    @Test func aHostBackFromSilenceKeepsTheAddressesItHasNotAnsweredOnYet() throws {
        var table = DeviceTable(presence: presence, vendorOf: vendors)
        table.updateNeighbour(makeNeighbour("10.0.0.5", macA, confirmed: .seconds(1)), now: .seconds(1))
        table.updateNeighbour(makeNeighbour("fe80::5%lan0", macA, confirmed: .seconds(1)), now: .seconds(1))
        _ = table.takeChanges(now: .seconds(1))
        table.updateNeighbour(makeNeighbour("10.0.0.5", nil, .failed, confirmed: .seconds(1)), now: .seconds(10))
        table.updateNeighbour(makeNeighbour("fe80::5%lan0", nil, .failed, confirmed: .seconds(1)), now: .seconds(11))
        _ = table.takeChanges(now: .seconds(70))  // offline
        table.updateNeighbour(makeNeighbour("fe80::5%lan0", macA, confirmed: .seconds(80)), now: .seconds(80))
        let device = try #require(table.takeChanges(now: .seconds(80)).changes.first?.device)
        #expect(device.online && device.addresses == ["10.0.0.5", "fe80::5%lan0"])
    }
}
