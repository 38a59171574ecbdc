import Discovery
import Testing

@testable import PeerScanCore

private let macA = "00:00:0c:11:22:33"
private let macB = "3c:22:fb:44:55:66"

/// The neighbour address book on its own: what an entry teaches, moves and conflicts, dropped addresses, staleness.
@Suite struct NeighbourAddressBookTests {
    let time = TestTime()

    func makeBook(staleGrace: Duration = .zero) -> NeighbourAddressBook {
        NeighbourAddressBook(
            presence: DeviceTable.Presence(
                offlineAfter: .seconds(60),
                forgetAfter: .seconds(3600),
                conflictWindow: .seconds(60),
                staleGrace: staleGrace
            )
        )
    }

    @Test func anAnsweringEntryTeachesItsAddressAndAnUnverifiedOneDoesNot() {
        var book = makeBook()
        let change = book.update(makeNeighbour("10.0.0.5", macA, confirmed: time.now), now: time.now)
        #expect(change == NeighbourAddressBook.Change(macAddresses: [macA]))
        #expect(book.macAddress(of: "10.0.0.5") == macA)
        #expect(book.interface(of: "10.0.0.5") == "lan0")
        #expect(book.addresses(of: macA) == ["10.0.0.5"])
        #expect(book.lastAnswer(of: macA) == time.now)
        #expect(book.answers(mac: macA, now: time.now))
        #expect(book.isConfirmed(mac: macA))

        time.now = .seconds(600)
        let stale = makeNeighbour("10.0.0.6", macB, .stale, confirmed: .zero)
        #expect(book.update(stale, now: time.now) == NeighbourAddressBook.Change())
        #expect(book.macAddress(of: "10.0.0.6") == nil, "confirmed 600 s ago: no answer")
    }

    @Test func anAddressMovesToAnotherMACAddressAsAConflictOnlyWithinTheWindow() {
        var book = makeBook()
        _ = book.update(makeNeighbour("10.0.0.5", macA, confirmed: time.now), now: time.now)
        time.now = .seconds(10)
        let conflict = book.update(makeNeighbour("10.0.0.5", macB, confirmed: time.now), now: time.now)
        #expect(conflict.macAddresses == [macA, macB])
        #expect(conflict.moves == [.conflict(address: "10.0.0.5", macAddress: macB, previousMACAddress: macA)])
        #expect(book.addresses(of: macA).isEmpty)
        #expect(book.addresses(of: macB) == ["10.0.0.5"])

        time.now = .seconds(20)
        let again = book.update(makeNeighbour("10.0.0.5", macA, confirmed: .zero), now: time.now)
        #expect(again.moves.isEmpty, "a conflict over one address is reported once per window")

        time.now = .seconds(200)
        let moved = book.update(makeNeighbour("10.0.0.5", macB, confirmed: time.now), now: time.now)
        #expect(moved.moves == [.macChanged(address: "10.0.0.5", macAddress: macB, previousMACAddress: macA)])
    }

    @Test func anAddressThatFailedLeavesItsMACAddressWhenItAnswersOnAnotherOne() {
        var book = makeBook()
        _ = book.update(makeNeighbour("10.0.0.5", macA, confirmed: .zero), now: .zero)
        _ = book.update(makeNeighbour("fe80::1%lan0", macA, confirmed: .zero), now: .zero)
        time.now = .seconds(10)
        _ = book.update(makeNeighbour("10.0.0.5", nil, .failed), now: time.now)
        #expect(book.macAddress(of: "10.0.0.5") == macA, "failed, not dropped yet")
        #expect(book.hasFailedEntry(mac: macA))
        time.now = .seconds(20)
        let change = book.update(makeNeighbour("fe80::1%lan0", macA, confirmed: time.now), now: time.now)
        #expect(change.detachedAddresses == ["10.0.0.5"])
        #expect(book.macAddress(of: "10.0.0.5") == nil)
        #expect(book.addresses(of: macA) == ["fe80::1%lan0"])
    }

    @Test func aHostThatWentSilentKeepsEveryAddress() {
        var book = makeBook()
        _ = book.update(makeNeighbour("10.0.0.5", macA, confirmed: .zero), now: .zero)
        _ = book.update(makeNeighbour("10.0.0.6", macA, confirmed: .zero), now: .zero)
        time.now = .seconds(100)
        _ = book.update(makeNeighbour("10.0.0.5", nil, .failed), now: time.now)
        _ = book.remove(makeNeighbour("10.0.0.6", macA), now: time.now)
        #expect(!book.answers(mac: macA, now: time.now))
        time.now = .seconds(200)
        let change = book.update(makeNeighbour("10.0.0.6", macA, confirmed: time.now), now: time.now)
        #expect(change.detachedAddresses.isEmpty, "both failed while silent: neither was dropped")
        #expect(book.addresses(of: macA) == ["10.0.0.5", "10.0.0.6"])
    }

    @Test func aStaleEntryAnswersWithinTheGraceAndPresenceCountsFromItsReachableEnd() {
        var book = makeBook(staleGrace: .seconds(14))
        _ = book.update(makeNeighbour("10.0.0.5", macA, confirmed: .zero), now: .zero)
        time.now = .seconds(90)
        let stale = makeNeighbour("10.0.0.5", macA, .stale, confirmed: .zero)
        _ = book.update(stale, now: time.now)
        #expect(book.isAnswering(stale, now: .seconds(103)))
        #expect(!book.isAnswering(stale, now: .seconds(104)))
        #expect(book.presenceStart(after: .zero, macs: [macA]) == .seconds(90))
        #expect(!book.isConfirmed(mac: macA))
    }

    @Test func theMeansAreTheFamiliesOfTheAnsweringOrResolvedAddresses() {
        var book = makeBook()
        _ = book.update(makeNeighbour("10.0.0.5", macA, confirmed: .zero), now: .zero)
        _ = book.update(makeNeighbour("fe80::1%lan0", macA, .failed), now: .zero)
        #expect(book.answeringMeans(of: [macA], now: .zero) == ["arp"])
        #expect(book.resolvingMeans(of: ["10.0.0.5", "fe80::1%lan0", "10.0.0.9"]) == ["arp"])
    }

    @Test func replacingTheTableRemovesTheEntriesNotInIt() {
        var book = makeBook()
        _ = book.update(makeNeighbour("10.0.0.5", macA, confirmed: .zero), now: .zero)
        _ = book.update(makeNeighbour("10.0.0.6", macA, confirmed: .zero), now: .zero)
        time.now = .seconds(5)
        let change = book.replaceAll(with: [makeNeighbour("10.0.0.6", macA, confirmed: time.now)], now: time.now)
        #expect(change.macAddresses == [macA])
        #expect(book.hasFailedEntry(mac: macA), "10.0.0.5's entry went")
        #expect(book.remove(makeNeighbour("10.0.0.7", macB), now: time.now) == NeighbourAddressBook.Change())
    }

    @Test func forgettingAMACAddressForgetsItsAddressesAndAnswers() {
        var book = makeBook()
        _ = book.update(makeNeighbour("10.0.0.5", macA, confirmed: .zero), now: .zero)
        book.forget(mac: macA)
        #expect(book.macAddress(of: "10.0.0.5") == nil)
        #expect(book.addresses(of: macA).isEmpty)
        #expect(book.lastAnswer(of: macA) == nil)
        book.removeAll()
        #expect(!book.answers(mac: macA, now: .zero))
    }
}
