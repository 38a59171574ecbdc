// How Avahi's events become discovery events: the translation the Avahi source makes between AvahiBrowser and the discovery seam.

import AvahiBrowser
import Discovery
import NIOConcurrencyHelpers
import PeerScanModel
import TestSupport
import Testing

@testable import AvahiSource

private func key(_ name: String, interface: String = "lan0", ipv6: Bool = false) -> AvahiServiceKey {
    AvahiServiceKey(
        interfaceIndex: 7,
        interfaceName: interface,
        ipProtocol: ipv6 ? .ipv6 : .ipv4,
        name: name,
        type: "_ipp._tcp",
        domain: "local"
    )
}

@Suite struct AvahiDiscoverySourceTests {
    @Test func aResolvedServiceKeepsEverythingAndDecodesItsTXT() {
        let service = AvahiService(
            key: key("Printer", ipv6: true),
            hostName: "printer.local",
            addresses: ["fe80::1%lan0"],
            port: 631,
            txt: [TXTRecord(Array("color=T".utf8)), TXTRecord(Array("duplex".utf8))],
            flags: [.multicast]
        )
        let expected = ServiceInstance(
            key: ServiceInstanceKey(
                interface: "lan0",
                ipProtocol: .ipv6,
                name: "Printer",
                type: "_ipp._tcp",
                domain: "local"
            ),
            hostName: "printer.local",
            addresses: ["fe80::1%lan0"],
            port: 631,
            txt: [TXTEntry(key: "color", value: "T"), TXTEntry(key: "duplex", value: nil)]
        )
        #expect(AvahiDiscoverySource.mdnsEvent(.serviceResolved(service)) == .serviceResolved(expected))
    }

    @Test func anInterfaceWithoutANameIsNamedByItsIndex() {
        guard
            case .serviceFound(let found)? = AvahiDiscoverySource.mdnsEvent(.serviceFound(key("P", interface: "")))
        else {
            Issue.record("not a serviceFound")
            return
        }
        #expect(found.interface == "if7")
        #expect(found.ipProtocol == .ipv4)
    }

    @Test func removalsAndSettlingMapOneToOne() {
        let instance = ServiceInstanceKey(
            interface: "lan0",
            ipProtocol: .ipv4,
            name: "P",
            type: "_ipp._tcp",
            domain: "local"
        )
        #expect(AvahiDiscoverySource.mdnsEvent(.serviceRemoved(key("P"))) == .serviceRemoved(instance))
        #expect(AvahiDiscoverySource.mdnsEvent(.typeSettled("_ipp._tcp")) == .typeSettled("_ipp._tcp"))
        #expect(AvahiDiscoverySource.mdnsEvent(.allForNow) == .browsingSettled)
    }

    @Test func addressRecordsAndTheirFollowingMapOneToOne() {
        let record = AvahiHostAddress(
            hostName: "printer.local",
            address: "10.0.0.9",
            interfaceIndex: 1,
            interfaceName: "lo",
            ipProtocol: .ipv6
        )
        let expected = HostAddress(hostName: "printer.local", address: "10.0.0.9", interface: "lo", ipProtocol: .ipv6)
        #expect(AvahiDiscoverySource.mdnsEvent(.addressAdded(record)) == .addressAdded(expected))
        #expect(AvahiDiscoverySource.mdnsEvent(.addressRemoved(record)) == .addressRemoved(expected))
        #expect(
            AvahiDiscoverySource.mdnsEvent(.followingAddresses(hostName: "printer.local"))
                == .followingAddresses(hostName: "printer.local")
        )
        #expect(
            AvahiDiscoverySource.mdnsEvent(.addressesKnown(hostName: "printer.local"))
                == .addressesKnown(hostName: "printer.local")
        )
    }

    @Test func aFailedResolveIsReportedAndCacheExhaustionIsNot() {
        let timeout = AvahiError(code: AvahiError.timeoutCode, message: "Timeout reached", operation: "resolve")
        #expect(
            AvahiDiscoverySource.mdnsEvent(.resolveFailed(key("P"), timeout))
                == .resolveFailed(
                    ServiceInstanceKey(
                        interface: "lan0",
                        ipProtocol: .ipv4,
                        name: "P",
                        type: "_ipp._tcp",
                        domain: "local"
                    )
                )
        )
        #expect(AvahiDiscoverySource.mdnsEvent(.cacheExhausted) == nil)
    }

    @Test(arguments: [
        (AvahiServerState.connecting, SourceState.connecting),
        (.registering, .registering),
        (.running, .running),
        (.collision, .collision),
        (
            .failure(AvahiError(code: -23, message: "Daemon connection failed", operation: "avahi_client")),
            .failure(reason: "avahi_client: Daemon connection failed (-23)")
        ),
        (
            .unavailable(AvahiError(code: -26, message: "Daemon not running", operation: "avahi_client_new")),
            .unavailable(reason: "avahi_client_new: Daemon not running (-26)")
        ),
    ])
    func serverStatesCarryTheirReason(state: AvahiServerState, expected: SourceState) {
        #expect(
            AvahiDiscoverySource.mdnsEvent(.serverState(state, hostName: "scanner.local"))
                == .sourceState(expected, hostName: "scanner.local")
        )
    }
}

@Suite(.timeLimit(.minutes(1))) struct InterfaceFollowingTests {
    @Test func reportsTheFirstListThenOnlyChanges() async {
        let clock = ManualClock()
        let interfaces = NIOLockedValueBox(["eth0"])
        let reports = NIOLockedValueBox<[[String]]>([])
        let following = Task {
            await AvahiDiscoverySource.followInterfaces(
                { interfaces.withLockedValue { $0 } },
                every: .seconds(2),
                clock: clock
            ) {
                list in reports.withLockedValue { $0.append(list) }
            }
        }
        #expect(await eventually { clock.sleeperCount == 1 }, "checking")
        #expect(reports.withLockedValue { $0 } == [["eth0"]])

        clock.advance(by: .seconds(2))  // nothing changed: nothing reported
        #expect(await eventually { clock.sleeperCount == 1 })
        interfaces.withLockedValue { $0 = ["eth0", "wlan0"] }
        clock.advance(by: .seconds(2))
        #expect(await eventually { reports.withLockedValue { $0 } == [["eth0"], ["eth0", "wlan0"]] })
        #expect(await eventually { clock.sleeperCount == 1 })
        clock.advance(by: .seconds(2))
        #expect(await eventually { clock.sleeperCount == 1 })
        #expect(reports.withLockedValue { $0.count } == 2, "the same list again is no change")

        following.cancel()
        await following.value
    }
}

// Avahi withdraws an interface whose link goes down, one removal at a time: told apart from departures by whether the
// interface is still up.
@Suite struct InterfaceWithdrawalsTests {
    private let printerRow = ServiceInstanceKey(
        interface: "lan0",
        ipProtocol: .ipv4,
        name: "P",
        type: "_ipp._tcp",
        domain: "local"
    )
    private let printerAddress = HostAddress(
        hostName: "printer.local",
        address: "10.0.0.9",
        interface: "lan0",
        ipProtocol: .ipv4
    )

    @Test func aRemovalOnAnInterfaceThatIsUpIsADeparture() {
        var withdrawals = InterfaceWithdrawals(isUp: { _ in true })
        #expect(withdrawals.events(for: .serviceRemoved(printerRow)) == [.serviceRemoved(printerRow)])
        #expect(withdrawals.withdrawn.isEmpty)
    }

    @Test func theFirstRemovalOnAnInterfaceThatIsDownWithdrawsItOnce() {
        let asked = NIOLockedValueBox<[String]>([])
        var withdrawals = InterfaceWithdrawals(isUp: { name in
            asked.withLockedValue { $0.append(name) }
            return false
        })
        #expect(
            withdrawals.events(for: .addressRemoved(printerAddress))
                == [.interfaceWithdrawn("lan0"), .addressRemoved(printerAddress)]
        )
        #expect(withdrawals.events(for: .serviceRemoved(printerRow)) == [.serviceRemoved(printerRow)])
        #expect(asked.withLockedValue { $0 } == ["lan0"], "asked once: the interface is known to be withdrawn")
    }

    @Test func aWithdrawnLinkFoundUpAgainIsBackBeforeAvahiReportsFromIt() {
        let up = NIOLockedValueBox(false)
        var withdrawals = InterfaceWithdrawals(isUp: { _ in up.withLockedValue { $0 } })
        _ = withdrawals.events(for: .serviceRemoved(printerRow))
        #expect(withdrawals.linksBackUp().isEmpty, "still down")
        up.withLockedValue { $0 = true }
        #expect(withdrawals.linksBackUp() == [.interfaceReturned("lan0")])
        #expect(withdrawals.linksBackUp().isEmpty, "once")
        let found = MDNSEvent.serviceFound(printerRow)
        #expect(withdrawals.events(for: found) == [found], "no second return when Avahi reports from it")
    }

    @Test(arguments: [
        MDNSEvent.serviceFound(
            ServiceInstanceKey(interface: "lan0", ipProtocol: .ipv6, name: "Q", type: "_ipp._tcp", domain: "local")
        ),
        .addressAdded(HostAddress(hostName: "q.local", address: "fd00::9", interface: "lan0", ipProtocol: .ipv6)),
    ])
    func theFirstReportOnAWithdrawnInterfaceMeansItIsBack(report: MDNSEvent) {
        var withdrawals = InterfaceWithdrawals(isUp: { _ in false })
        _ = withdrawals.events(for: .serviceRemoved(printerRow))
        #expect(withdrawals.events(for: report) == [.interfaceReturned("lan0"), report])
        #expect(withdrawals.events(for: report) == [report], "once")
        #expect(withdrawals.withdrawn.isEmpty)
    }

    @Test func losingAvahiEndsEveryWithdrawal() {
        var withdrawals = InterfaceWithdrawals(isUp: { _ in false })
        _ = withdrawals.events(for: .serviceRemoved(printerRow))
        let lost = MDNSEvent.sourceState(.failure(reason: "gone"), hostName: nil)
        #expect(withdrawals.events(for: lost) == [lost])
        #expect(withdrawals.withdrawn.isEmpty)
    }
}
