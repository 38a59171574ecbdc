import MonitoringLog
import NIOConcurrencyHelpers
import PeerScanModel
import TestSupport
import Testing

@testable import AlertDelivery

/// The sender with a digest, on a manual clock: a window's alerts go as one request when it ends, each acknowledged
/// only once that request was taken; the scanner's faults and tests go at once.
@Suite(.timeLimit(.minutes(1))) struct AlertSenderDigestTests {
    static let url = "json://hooks.lan/in"

    /// AlertSenderTests' sender, with a window of a minute on every destination.
    func makeSender(
        _ urls: [String] = [url],
        transport: ScriptedTransport,
        clock: ManualClock,
        acks: RecordedAcks
    ) throws -> AlertSender<ManualClock> {
        try AlertSenderTests().makeSender(urls, digest: .seconds(60), transport: transport, clock: clock, acks: acks)
    }

    @Test func aWindowsAlertsAreOneRequestAcknowledgedEachAfterIt() async throws {
        let transport = ScriptedTransport([:])
        let clock = ManualClock()
        let acks = RecordedAcks()
        let sender = try makeSender(transport: transport, clock: clock, acks: acks)
        let alerts = (1...3).map { AlertSenderTests.alert($0) }
        let running = Task { await sender.run() }
        sender.offer(alerts[0], to: Self.url)
        #expect(await eventually { clock.wakeTimes == [.seconds(60)] }, "the first alert opens the window")
        clock.advance(by: .seconds(30))
        sender.offer(alerts[1], to: Self.url)
        sender.offer(alerts[2], to: Self.url)
        #expect(await eventually { sender.collectedCount == 3 }, "the window has them all before it ends")
        #expect(clock.wakeTimes == [.seconds(60)], "the window's end does not move")
        #expect(transport.requests.isEmpty && acks.all.isEmpty, "nothing sent before the window ends")
        clock.advance(to: .seconds(60))
        #expect(await eventually { acks.all.count == 3 })
        running.cancel()  // not finish(): a failed expectation must not leave run() waiting for a window
        await running.value
        #expect(transport.requests.count == 1)
        let key = AlertDigest(alerts).key
        #expect(transport.requests[0].header(Destination.alertIDHeader) == key)
        #expect(acks.all.map(\.id) == alerts.map(\.id))
        #expect(acks.all.allSatisfy { $0.outcome == "sent" && $0.answer == "HTTP 200" })
        #expect(sender.pendingCount == 0)
    }

    /// A digest that fails is tried again whole, with the same key, nothing acknowledged meanwhile; a refusal then
    /// rejects each of its alerts.
    @Test func aDigestIsRetriedWholeAndARefusalRejectsEachAlert() async throws {
        let transport = ScriptedTransport([
            Self.url: [nil, TransportAnswer(status: 503), TransportAnswer(status: 400, reason: "Bad Request")]
        ])
        let clock = ManualClock()
        let acks = RecordedAcks()
        let sender = try makeSender(transport: transport, clock: clock, acks: acks)
        let alerts = (1...3).map { AlertSenderTests.alert($0) }
        let running = Task { await sender.run() }
        for alert in alerts { sender.offer(alert, to: Self.url) }
        #expect(await eventually { clock.wakeTimes == [.seconds(60)] && sender.collectedCount == 3 }, "the window")
        clock.advance(to: .seconds(60))
        for retry in [Duration.seconds(61), .seconds(63)] {
            #expect(await eventually { clock.wakeTimes == [retry] }, "tried again at \(retry)")
            #expect(acks.all.isEmpty, "nothing acknowledged before the receiver answered for good")
            clock.advance(to: retry)
        }
        #expect(await eventually { acks.all.count == 3 })
        running.cancel()
        await running.value
        let key = AlertDigest(alerts).key
        #expect(transport.requests.count == 3, "one request a try, never one per alert")
        #expect(transport.requests.allSatisfy { $0.header(Destination.alertIDHeader) == key }, "one key for all")
        #expect(acks.all.map(\.id) == alerts.map(\.id))
        #expect(acks.all.allSatisfy { $0.outcome == "rejected" && $0.answer == "HTTP 400 Bad Request" })
    }

    /// A test alert and a scanner fault go at once while a window is open; a destination with `?digest=off` sends
    /// every alert at once.
    @Test func faultsTestsAndDestinationsWithoutADigestGoAtOnce() async throws {
        let off = "ntfy://ntfy.lan/t?digest=off"
        let transport = ScriptedTransport([:])
        let clock = ManualClock()
        let acks = RecordedAcks()
        let sender = try makeSender([Self.url, off], transport: transport, clock: clock, acks: acks)
        let running = Task { await sender.run() }
        var test = AlertSenderTests.alert(2, device: "")
        test.event = "test"
        var fault = AlertSenderTests.alert(3, device: "")
        fault.event = "scanner-fault"
        sender.offer(AlertSenderTests.alert(1), to: Self.url)
        sender.offer(AlertSenderTests.alert(1), to: "ntfy://ntfy.lan/t")
        #expect(await eventually { clock.sleeperCount == 1 })
        sender.offer(test, to: Self.url)
        sender.offer(fault, to: Self.url)
        #expect(await eventually { acks.all.count == 3 }, "the test, the fault and the other destination's alert")
        #expect(Set(acks.all.map(\.id)) == [test.id, fault.id, AlertSenderTests.alert(1).id])
        #expect(clock.wakeTimes == [.seconds(60)], "the window still collects")
        clock.advance(to: .seconds(60))
        #expect(await eventually { acks.all.count == 4 })
        running.cancel()  // not finish(): a failed expectation must not leave run() waiting for a window
        await running.value
        #expect(transport.requests.count == 4)
    }
}
