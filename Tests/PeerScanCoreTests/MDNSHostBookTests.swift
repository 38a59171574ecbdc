import Testing

@testable import PeerScanCore

/// The mDNS host book on its own: what an update records and drops, withdrawal, questions, removal, on a manual clock.
@Suite struct MDNSHostBookTests {
    let time = TestTime()

    func announced(_ addresses: [String], hostName: String = "tv.local") -> AnnouncedHost {
        AnnouncedHost(hostName: hostName, displayName: nil, addresses: addresses, interfaces: ["lan0"], services: [])
    }

    @Test func anUpdateRecordsTheHostAndReturnsTheAddressesItDropped() {
        var book = MDNSHostBook()
        time.now = .seconds(5)
        let first = book.update(hostName: "tv.local", host: announced(["10.0.0.5", "fe80::1"]), now: time.now)
        #expect(first == [])
        #expect(book["tv.local"]?.addresses == ["10.0.0.5", "fe80::1"])
        #expect(book["tv.local"]?.appearedAt == .seconds(5))
        #expect(book.hosts(announcing: "10.0.0.5") == ["tv.local"])
        _ = book.update(hostName: "nas.local", host: announced(["10.0.0.5"], hostName: "nas.local"), now: time.now)
        #expect(book.hosts(announcing: "10.0.0.5") == ["tv.local", "nas.local"])

        time.now = .seconds(9)
        let second = book.update(hostName: "tv.local", host: announced(["10.0.0.6", "fe80::1"]), now: time.now)
        #expect(second == ["10.0.0.5"])
        #expect(book.hosts(announcing: "10.0.0.5") == ["nas.local"])
        #expect(book.hosts(announcing: "10.0.0.6") == ["tv.local"])
        #expect(book["tv.local"]?.appearedAt == .seconds(5), "present all along")
        #expect(book["tv.local"]?.lastSeen == .seconds(9))
    }

    @Test func aWithdrawnHostKeepsItsAddressesAndAppearsAgainLater() {
        var book = MDNSHostBook()
        let unknown = book.update(hostName: "tv.local", host: nil, now: time.now)
        #expect(unknown == nil, "nothing to withdraw")
        _ = book.update(hostName: "tv.local", host: announced(["10.0.0.5"]), now: time.now)

        time.now = .seconds(30)
        let withdrawn = book.update(hostName: "tv.local", host: nil, now: time.now)
        let again = book.update(hostName: "tv.local", host: nil, now: time.now)
        #expect(withdrawn == [])
        #expect(again == nil, "withdrawn already")
        #expect(book["tv.local"]?.isPresent == false)
        #expect(book["tv.local"]?.lastSeen == .seconds(30))
        #expect(book.hosts(announcing: "10.0.0.5") == ["tv.local"])

        time.now = .seconds(40)
        _ = book.update(hostName: "tv.local", host: announced(["10.0.0.5"]), now: time.now)
        #expect(book["tv.local"]?.appearedAt == .seconds(40))
    }

    @Test func questionsAndAnswersAreNotedOnKnownHostsOnly() {
        var book = MDNSHostBook()
        let unknown = book.noteAnswer(hostName: "tv.local", now: time.now)
        #expect(!unknown)
        _ = book.update(hostName: "tv.local", host: announced(["10.0.0.5"]), now: time.now)
        time.now = .seconds(10)
        book.noteAsked(hostName: "tv.local", at: time.now)
        time.now = .seconds(12)
        let known = book.noteAnswer(hostName: "tv.local", now: time.now)
        #expect(known)
        #expect(book["tv.local"]?.askedAt == .seconds(10))
        #expect(book["tv.local"]?.answeredAt == .seconds(12))
        book.noteAsked(hostName: "tv.local", at: nil)
        #expect(book["tv.local"]?.askedAt == nil)
    }

    @Test func removingAHostTakesItOffItsAddresses() {
        var book = MDNSHostBook()
        _ = book.update(hostName: "tv.local", host: announced(["10.0.0.5"]), now: time.now)
        _ = book.update(hostName: "nas.local", host: announced(["10.0.0.6"], hostName: "nas.local"), now: time.now)
        let removed = book.remove(hostName: "tv.local")
        let again = book.remove(hostName: "tv.local")
        #expect(removed?.addresses == ["10.0.0.5"])
        #expect(again == nil)
        #expect(book.hosts(announcing: "10.0.0.5").isEmpty)
        book.removeAll()
        #expect(book["nas.local"] == nil)
        #expect(book.hosts(announcing: "10.0.0.6").isEmpty)
    }
}
