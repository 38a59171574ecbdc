import Testing

@testable import AlertDelivery

@Suite struct RetryPolicyTests {
    @Test func backoffDoublesFromOneSecondToFiveMinutes() {
        let policy = RetryPolicy.standard
        let waits = (1...12).map { policy.delay(afterFailures: $0, random: 0) }
        #expect(waits.map { $0.components.seconds } == [1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300])
        #expect(policy.delay(afterFailures: 1000, random: 0) == .seconds(300), "no overflow")
    }

    @Test func jitterShortensAWaitByAtMostItsFraction() {
        let policy = RetryPolicy.standard
        #expect(policy.delay(afterFailures: 3, random: 0.5) == .seconds(4) * 0.9)
        for draw in stride(from: 0.0, to: 1.0, by: 0.05) {
            let wait = policy.delay(afterFailures: 10, random: draw)
            #expect(wait <= .seconds(300) && wait > .seconds(240))
        }
    }

    @Test func retryAfterIsHonouredUpToItsLimit() {
        let policy = RetryPolicy.standard
        #expect(policy.delay(afterFailures: 1, retryAfter: .seconds(120), random: 0.9) == .seconds(120))
        #expect(policy.delay(afterFailures: 1, retryAfter: .seconds(86_400), random: 0) == .seconds(3600))
    }

    @Test(
        arguments: [
            (200, nil, DeliveryOutcome.sent(status: 200)),
            (204, nil, .sent(status: 204)),
            (301, nil, .rejected(status: 301)),
            (400, nil, .rejected(status: 400)),
            (401, nil, .rejected(status: 401)),
            (404, nil, .rejected(status: 404)),
            (408, nil, .transient(status: 408, retryAfter: nil)),
            (429, "30", .transient(status: 429, retryAfter: .seconds(30))),
            (429, "Wed, 21 Oct 2015 07:28:00 GMT", .transient(status: 429, retryAfter: nil)),
            (500, nil, .transient(status: 500, retryAfter: nil)),
            (503, " 5 ", .transient(status: 503, retryAfter: .seconds(5))),
        ] as [(Int, String?, DeliveryOutcome)]
    )
    func anAnswerIsSentRejectedOrTransient(_ status: Int, _ retryAfter: String?, _ expected: DeliveryOutcome) {
        #expect(DeliveryOutcome(status: status, retryAfter: retryAfter) == expected)
    }

    @Test func aLedgerTakesAnAlertOncePerDestinationUntilItsAcknowledgement() {
        var ledger = DeliveryLedger()
        let first = ledger.offer(id: "a", destination: "d1")
        let again = ledger.offer(id: "a", destination: "d1")
        let elsewhere = ledger.offer(id: "a", destination: "d2")
        #expect(first && !again, "queued: not taken again when offered again after a reconnect")
        #expect(elsewhere, "each destination its own")
        ledger.delivered(id: "a", destination: "d1")
        let afterDelivery = ledger.offer(id: "a", destination: "d1")
        #expect(!afterDelivery, "delivered, its acknowledgement pending")
        #expect(ledger.state(id: "a", destination: "d1") == .delivered)
        ledger.acknowledged(id: "a", destination: "d1")
        #expect(ledger.state(id: "a", destination: "d1") == nil && ledger.count == 1)
    }
}
