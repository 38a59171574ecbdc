// Presence follows the host, not Avahi's cache: an mDNS host whose neighbour entries fail is asked once, goes offline
// at --offline-after unless it answers, keeps its services as last known, and is back at once with its id.

import Discovery
import PeerScanCore
import PeerScanModel
import Testing

private let mac = "3c:22:fb:44:55:66"
private let window = Duration.seconds(10)
private let presence = DeviceTable.Presence(offlineAfter: window, forgetAfter: .seconds(600))

private func entry(_ address: String, _ state: Neighbour.State, confirmed: Duration?) -> Neighbour {
    Neighbour(
        address: address,
        interface: "lan0",
        macAddress: state == .failed || state == .incomplete ? nil : mac,
        state: state,
        lastConfirmed: confirmed
    )
}

private func phone(addresses: [String] = ["10.0.0.7", "fd00::7"]) -> AnnouncedHost {
    AnnouncedHost(
        hostName: "phone.local",
        displayName: "Phone",
        addresses: addresses,
        interfaces: ["lan0"],
        services: [
            DeviceService(name: "Phone", type: "_companion-link._tcp", domain: "local", port: 49152, txt: [])
        ]
    )
}

/// A table with the phone announced and reachable at `t` = 0 (on every address given), its changes taken.
private func tableWithPhone(
    addresses: [String] = ["10.0.0.7", "fd00::7"],
    presence: DeviceTable.Presence = presence
)
    -> DeviceTable
{
    var table = DeviceTable(presence: presence)
    table.updateMDNSHost(hostName: "phone.local", host: phone(addresses: addresses), now: .zero)
    for address in addresses { table.updateNeighbour(entry(address, .reachable, confirmed: .zero), now: .zero) }
    _ = table.takeChanges(now: .zero)
    return table
}

/// The phone leaves at 1 s: the kernel's probes of every address fail then (it last confirmed them at 0 s).
private func leave(_ table: inout DeviceTable, addresses: [String] = ["10.0.0.7", "fd00::7"]) {
    for address in addresses { table.updateNeighbour(entry(address, .failed, confirmed: .zero), now: .seconds(1)) }
}

@Suite struct HostPresenceTests {
    @Test func `a host whose entries fail is asked once and is offline at the window with its services listed`() throws
    {
        var table = tableWithPhone()
        leave(&table)
        #expect(table.takeChanges(now: .seconds(1)).changes.isEmpty, "within the window: its records do not count")
        let questions = table.takeQuestions()
        #expect(
            questions == [
                HostQuestion(hostName: "phone.local", addresses: ["10.0.0.7", "fd00::7"], interfaces: ["lan0"])
            ]
        )
        #expect(table.takeChanges(now: .seconds(9)).changes.isEmpty)
        #expect(table.takeQuestions().isEmpty, "one question, not one per check")
        let (changes, events) = table.takeChanges(now: .seconds(10))
        let device = try #require(changes.first?.device)
        #expect(!device.online)
        #expect(device.services == phone().services, "last known services stay until Avahi withdraws them")
        #expect(events == [.offline(device)])
        #expect(device.presenceReason?.description == "unanswered asked=arp,ndp,mdns")
        #expect(table.takeQuestions().isEmpty, "an offline host is not asked")
    }

    @Test func `a host that answers the question stays online and is asked again half a window after each answer`() {
        var table = tableWithPhone()
        leave(&table)
        _ = table.takeChanges(now: .seconds(1))
        #expect(table.takeQuestions().count == 1)
        table.observe(
            .hostAnswered(hostName: "phone.local", address: "10.0.0.7"),
            interfaces: ["lan0"],
            now: .seconds(1)
        )
        #expect(table.takeChanges(now: .seconds(1)).changes.isEmpty)
        #expect(table.takeQuestions().isEmpty)
        #expect(table.takeChanges(now: .seconds(5)).changes.isEmpty)
        #expect(table.takeQuestions().isEmpty, "not before half the window after the answer")
        #expect(table.takeChanges(now: .seconds(6)).changes.isEmpty)
        #expect(table.takeQuestions().count == 1, "asked again at 6 s")
        table.observe(
            .hostAnswered(hostName: "phone.local", address: "10.0.0.7"),
            interfaces: ["lan0"],
            now: .seconds(6)
        )
        #expect(table.takeChanges(now: .seconds(15)).changes.isEmpty, "online past the first window: it answered")
        // Asked at 11 s, no answer: offline 10 s after the last answer (6 s).
        #expect(table.takeQuestions().count == 1)
        let (changes, events) = table.takeChanges(now: .seconds(16))
        #expect(changes.first?.device?.online == false)
        #expect(events.map(\.isOffline) == [true])
        #expect(changes.first?.device?.presenceReason?.means.contains("mdns") == true, "the last one went unanswered")
    }

    @Test func `it is back at once with its id when an entry answers, and asked anew when it leaves again`() throws {
        var table = tableWithPhone()
        leave(&table)
        _ = table.takeChanges(now: .seconds(1))
        _ = table.takeChanges(now: .seconds(11))
        #expect(table.takeQuestions().count == 1)
        table.updateNeighbour(entry("10.0.0.7", .reachable, confirmed: .seconds(40)), now: .seconds(40))
        let (changes, events) = table.takeChanges(now: .seconds(40))
        let device = try #require(changes.first?.device)
        #expect(device.online && device.id == DeviceID.make(hostName: "phone.local"))
        #expect(events == [.online(device)])
        table.updateNeighbour(entry("10.0.0.7", .failed, confirmed: .seconds(40)), now: .seconds(41))
        _ = table.takeChanges(now: .seconds(41))
        #expect(table.takeQuestions().count == 1, "a new departure, a new question")
    }

    @Test func `a failed entry is enough to ask while the others linger in the kernel's verification`() {
        var table = tableWithPhone()
        // The kernel verifies the IPv6 entry (delay, then probe) for seconds after the host left; the IPv4 one failed.
        table.updateNeighbour(entry("fd00::7", .delay, confirmed: .zero), now: .seconds(1))
        table.updateNeighbour(entry("10.0.0.7", .failed, confirmed: .zero), now: .seconds(3))
        _ = table.takeChanges(now: .seconds(3))
        #expect(table.takeQuestions().count == 1, "asked at 3 s, not when the delay entry runs out at the window")
        table.updateNeighbour(entry("fd00::7", .probe, confirmed: .zero), now: .seconds(6))
        let (changes, _) = table.takeChanges(now: .seconds(10))
        #expect(changes.first?.device?.online == false, "an entry being verified counts only within the window")
    }

    @Test func `a host whose IPv4 entry failed but whose IPv6 entry is reachable is not asked`() {
        var table = tableWithPhone()
        table.updateNeighbour(entry("fd00::7", .reachable, confirmed: .seconds(3)), now: .seconds(3))
        table.updateNeighbour(entry("10.0.0.7", .failed, confirmed: .zero), now: .seconds(3))
        _ = table.takeChanges(now: .seconds(3))
        #expect(table.takeQuestions().isEmpty)
    }

    @Test func `an IPv6-only host is judged by NDP the same way`() throws {
        var table = tableWithPhone(addresses: ["fd00::7"])
        leave(&table, addresses: ["fd00::7"])
        _ = table.takeChanges(now: .seconds(1))
        #expect(table.takeQuestions().map(\.addresses) == [["fd00::7"]])
        let (_, events) = table.takeChanges(now: .seconds(10))
        #expect(events.map(\.isOffline) == [true])
        if case .offline(let device)? = events.first {
            #expect(device.presenceReason == PresenceReason(.unanswered, ["ndp", "mdns"]))
        }
    }

    @Test func `a host the kernel never resolved is judged by its records, as an mDNS browser does`() throws {
        var table = DeviceTable(presence: presence)
        table.updateMDNSHost(hostName: "phone.local", host: phone(), now: .zero)
        _ = table.takeChanges(now: .zero)
        #expect(table.takeChanges(now: .seconds(100)).changes.isEmpty, "online while it has records")
        #expect(table.takeQuestions().isEmpty, "nothing to ask: nothing failed")
        table.updateMDNSHost(hostName: "phone.local", host: nil, now: .seconds(100))
        #expect(table.takeChanges(now: .seconds(100)).changes.first?.device?.services == [], "its services went")
        #expect(table.takeChanges(now: .seconds(109)).changes.isEmpty)
        let (changes, events) = table.takeChanges(now: .seconds(110))
        let device = try #require(changes.first?.device)
        #expect(events == [.offline(device)])
        #expect(device.presenceReason == PresenceReason(.withdrawn))
    }

    @Test func `records that appear count once: a host seen with an unverified entry is not offline at once`() {
        var table = DeviceTable(presence: presence)
        // A stale entry last confirmed long ago, then the host's records (Avahi's cache at start, or an announcement).
        table.updateNeighbour(entry("10.0.0.7", .stale, confirmed: .seconds(1)), now: .seconds(100))
        table.updateMDNSHost(hostName: "phone.local", host: phone(addresses: ["10.0.0.7"]), now: .seconds(100))
        #expect(table.takeChanges(now: .seconds(100)).changes.first?.device?.online == true)
        #expect(table.takeChanges(now: .seconds(109)).changes.isEmpty)
    }

    @Test func `a record that changes or expires is not an answer`() throws {
        var table = tableWithPhone()
        leave(&table)
        _ = table.takeChanges(now: .seconds(1))
        var fewer = phone()
        fewer.services = []
        fewer.displayName = nil
        table.updateMDNSHost(hostName: "phone.local", host: fewer, now: .seconds(8))
        _ = table.takeChanges(now: .seconds(8))
        #expect(table.takeChanges(now: .seconds(10)).changes.first?.device?.online == false)
    }

    @Test func `a host whose records went is asked all the same: it spoke mDNS`() {
        var table = tableWithPhone()
        table.updateMDNSHost(hostName: "phone.local", host: nil, now: .seconds(1))  // its services withdrawn
        _ = table.takeChanges(now: .seconds(1))
        leave(&table)
        _ = table.takeChanges(now: .seconds(1))
        #expect(table.takeQuestions().map(\.hostName) == ["phone.local"])
    }

    @Test func `nothing is asked when devices go as soon as they stop answering`() {
        var table = tableWithPhone(presence: .immediate)
        leave(&table)
        _ = table.takeChanges(now: .seconds(1))
        #expect(table.takeQuestions().isEmpty)
    }

    @Test func `an answer from a host the table does not know changes nothing`() {
        var table = tableWithPhone()
        table.observe(
            .hostAnswered(hostName: "other.local", address: "10.0.0.9"),
            interfaces: ["lan0"],
            now: .seconds(1)
        )
        #expect(table.takeChanges(now: .seconds(1)).changes.isEmpty)
    }
}

extension DeviceTable.Event {
    fileprivate var isOffline: Bool {
        if case .offline = self { return true }
        return false
    }
}
