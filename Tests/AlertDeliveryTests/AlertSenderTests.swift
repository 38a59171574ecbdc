import InMemoryLogging
import Logging
import MonitoringLog
import NIOConcurrencyHelpers
import PeerScanModel
import TestSupport
import Testing

@testable import AlertDelivery

/// A receiver that answers from a script: per host, a list of answers (or `nil`: no answer) taken in turn; the last
/// one repeats. Records every request.
final class ScriptedTransport: AlertTransport {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private let state: NIOLockedValueBox<(scripts: [String: [TransportAnswer?]], requests: [AlertRequest])>

    init(_ scripts: [String: [TransportAnswer?]]) { state = NIOLockedValueBox((scripts, [])) }

    var requests: [AlertRequest] { state.withLockedValue { $0.requests } }

    func send(_ request: AlertRequest) async throws -> TransportAnswer {
        let answer: TransportAnswer? = state.withLockedValue { state in
            state.requests.append(request)
            let host = request.destinationName
            guard var script = state.scripts[host], !script.isEmpty else { return TransportAnswer(status: 200) }
            let next = script.count > 1 ? script.removeFirst() : script[0]
            state.scripts[host] = script
            return next
        }
        guard let answer else {
            // As an HTTP library's error might: quoting the request, secrets and all.
            throw Failure(description: "refused: \(request.url) \(request.header("Authorization") ?? "")")
        }
        return answer
    }
}

final class RecordedAcks: Sendable {
    let acks = NIOLockedValueBox<[PeerScanWire.AckAlertParameters]>([])
    var all: [PeerScanWire.AckAlertParameters] { acks.withLockedValue { $0 } }
}

@Suite(.timeLimit(.minutes(1))) struct AlertSenderTests {
    static func alert(_ number: Int, device: String = "d1") -> PeerScanWire.Alert {
        PeerScanWire.Alert(
            id: "00000000-0000-4000-8000-\(String(repeating: "0", count: 12 - "\(number)".count))\(number)",
            event: "offline",
            created: "2026-11-29T17:00:00.000Z",
            device: device,
            title: "t\(number)",
            message: "m\(number)"
        )
    }

    func makeSender(
        _ urls: [String],
        digest: Duration? = nil,
        transport: ScriptedTransport,
        clock: ManualClock,
        acks: RecordedAcks
    ) throws -> AlertSender<ManualClock> {
        AlertSender(
            destinations: try urls.map { try Destination(parsing: $0) },
            transport: transport,
            clock: clock,
            linkBase: nil,
            digest: digest,
            logger: Logger.silent,
            random: { 0 },
            acknowledge: { ack in acks.acks.withLockedValue { $0.append(ack) } }
        )
    }

    @Test func everyAlertIsSentOnceInOrderAndAcknowledged() async throws {
        let transport = ScriptedTransport([:])
        let acks = RecordedAcks()
        let sender = try makeSender(["json://hooks.lan/in"], transport: transport, clock: ManualClock(), acks: acks)
        for number in 1...5 { #expect(sender.offer(Self.alert(number), to: "json://hooks.lan/in")) }
        #expect(!sender.offer(Self.alert(3), to: "json://hooks.lan/in"), "offered again: not queued twice")
        #expect(!sender.offer(Self.alert(6), to: "json://elsewhere/"), "a destination not given")
        sender.finish()
        await sender.run()
        let sentIDs = transport.requests.map { $0.header(Destination.alertIDHeader) }
        #expect(sentIDs == (1...5).map { Self.alert($0).id })
        #expect(acks.all.map(\.id) == (1...5).map { Self.alert($0).id })
        #expect(acks.all.allSatisfy { $0.outcome == "sent" && $0.answer == "HTTP 200" })
        #expect(sender.pendingCount == 0)
    }

    /// A receiver down: the alert is tried again after 1 s, 2 s, 4 s (on the manual clock), and the ones behind it
    /// wait; another destination is not held back.
    @Test func aTransientFailureIsRetriedWithBackoffAndHoldsBackOnlyItsDestination() async throws {
        let down = "json://down.lan/in"
        let up = "ntfy://up.lan/t"
        let transport = ScriptedTransport([
            down: [nil, TransportAnswer(status: 503), nil, TransportAnswer(status: 200)]
        ])
        let acks = RecordedAcks()
        let clock = ManualClock()
        let sender = try makeSender([down, up], transport: transport, clock: clock, acks: acks)
        sender.offer(Self.alert(1), to: down)
        sender.offer(Self.alert(2), to: down)
        sender.offer(Self.alert(1), to: up)
        let running = Task { await sender.run() }
        for expected in [Duration.seconds(1), .seconds(3), .seconds(7)] {
            #expect(await eventually { clock.wakeTimes == [expected] }, "waits \(expected) since the start")
            #expect(await eventually { acks.all.map(\.destination) == [up] }, "the other delivered; \(down) waits")
            clock.advance(to: expected)
        }
        #expect(await eventually { acks.all.count == 3 })
        sender.finish()
        await running.value
        let toDown = transport.requests.filter { $0.destinationName == down }
        #expect(toDown.count == 5, "4 tries of the first, 1 of the second")
        #expect(acks.all.filter { $0.destination == down }.map(\.id) == [Self.alert(1).id, Self.alert(2).id])
    }

    @Test func aRefusalIsAcknowledgedAsRejectedAndNotRetried() async throws {
        let url = "json://hooks.lan/in"
        let transport = ScriptedTransport([url: [TransportAnswer(status: 400, reason: "Bad Request", bodyStart: "no")]])
        let acks = RecordedAcks()
        let sender = try makeSender([url], transport: transport, clock: ManualClock(), acks: acks)
        sender.offer(Self.alert(1), to: url)
        sender.finish()
        await sender.run()
        #expect(transport.requests.count == 1)
        #expect(
            acks.all == [
                .init(id: Self.alert(1).id, destination: url, outcome: "rejected", answer: "HTTP 400 Bad Request: no")
            ]
        )
    }

    /// An acknowledgement that does not reach peerscand is tried again; the alert, offered again meanwhile, is not
    /// sent again.
    @Test func anUnacknowledgedDeliveryIsNotSentAgainWhenOfferedAgain() async throws {
        let url = "json://hooks.lan/in"
        let transport = ScriptedTransport([:])
        let clock = ManualClock()
        let attempts = NIOLockedValueBox(0)
        let sender = AlertSender(
            destinations: [try Destination(parsing: url)],
            transport: transport,
            clock: clock,
            linkBase: nil,
            logger: Logger.silent,
            random: { 0 },
            acknowledge: { _ in
                let attempt = attempts.withLockedValue {
                    $0 += 1
                    return $0
                }
                if attempt == 1 { throw ScriptedTransport.Failure(description: "peerscand away") }
            }
        )
        sender.offer(Self.alert(1), to: url)
        let running = Task { await sender.run() }
        #expect(await eventually { clock.sleeperCount == 1 }, "the acknowledgement waits to be tried again")
        #expect(!sender.offer(Self.alert(1), to: url), "offered again after a reconnect: not sent twice")
        clock.advance(by: .seconds(1))
        #expect(await eventually { sender.pendingCount == 0 })
        sender.finish()
        await running.value
        #expect(transport.requests.count == 1 && attempts.withLockedValue { $0 } == 2)
    }
}

@Suite(.timeLimit(.minutes(1))) struct AlertSenderLogTests {
    /// The log contract's two lines, by destination name; a secret echoed by the HTTP library's error or the
    /// receiver's answer is removed.
    @Test func theLogNamesTheDestinationAndNeverItsSecret() async throws {
        let url = "ntfy://tk_logsecret9@ntfy.lan/t"
        let name = "ntfy://ntfy.lan/t"
        let transport = ScriptedTransport([
            name: [
                nil, TransportAnswer(status: 401, reason: "Unauthorized", bodyStart: "bad token tk_logsecret9"),
                TransportAnswer(status: 200),
            ]
        ])
        let logs = InMemoryLogHandler()
        var logger = Logger(label: "peerscan.tests") { _ in logs }
        logger.logLevel = .debug
        let clock = ManualClock()
        let acks = RecordedAcks()
        let sender = AlertSender(
            destinations: [try Destination(parsing: url)],
            transport: transport,
            clock: clock,
            linkBase: nil,
            logger: logger,
            random: { 0 },
            acknowledge: { ack in acks.acks.withLockedValue { $0.append(ack) } }
        )
        sender.offer(AlertSenderTests.alert(1), to: name)
        sender.offer(AlertSenderTests.alert(2), to: name)
        let running = Task { await sender.run() }
        #expect(await eventually { clock.sleeperCount == 1 })
        clock.advance(by: .seconds(1))
        #expect(await eventually { acks.all.count == 2 })
        sender.finish()
        await running.value
        let lines = logs.entries.map { entry in
            ([entry.message.description] + entry.metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })
                .joined(separator: " ")
        }
        #expect(!lines.joined().contains("logsecret9"), "\(lines)")
        #expect(!acks.all.compactMap(\.answer).joined().contains("logsecret9"))
        let failed = logs.entries.filter { $0.message.description == LogMessage.alertSendFailed.text }
        #expect(failed.count == 2)
        #expect(failed[0].metadata["retry.in"]?.description == "1.0s")
        #expect(failed[0].metadata["error"]?.description.contains("<secret>") == true)
        #expect(failed[1].metadata["retry.in"] == nil, "refused for good")
        #expect(failed.allSatisfy { $0.metadata["destination"]?.description == name })
        let sent = logs.entries.filter { $0.message.description == LogMessage.alertSent.text }
        #expect(sent.count == 1 && sent[0].metadata["status"]?.description == "200")
        #expect(Set(sent[0].metadata.keys) == Set(LogMessage.alertSent.keys).subtracting(["digest"]), "no digest")
    }
}
