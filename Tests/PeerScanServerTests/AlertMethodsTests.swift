// The alerts' methods against the real handler, server and outbox (in memory) on a socket in /tmp, as peerscand
// serves them: FollowAlerts (pending, then new, then replaced), AckAlert, SendTestAlert, SetAlertRule, ListAlertRules.

import DeviceRegistry
import Foundation
import Logging
import PeerScanCore
import PeerScanModel
import TestSupport
import Testing
import Varlink
import VarlinkServer

@testable import PeerScanServer

/// io.peerscan with an in-memory outbox, served on a socket until `stop()`.
private struct AlertDaemon {
    let path = "/tmp/peerscan-alerts-test-\(getpid())-\(UUID().uuidString.prefix(8)).sock"
    let outbox = AlertOutbox(
        registry: DeviceRegistry(path: nil, forgetAfter: .seconds(60), logger: .silent),
        logger: .silent
    )
    var task: Task<Void, any Error>?

    mutating func start() async {
        let outbox = outbox
        let store = SnapshotStore(isScanning: true, interfaces: ["lan0"])
        let history = ChangeHistory(epoch: "e")
        let access = AlertAccess(
            follow: { await outbox.follow($0) },
            stopFollowing: { await outbox.stopFollowing($0) },
            followedDestinations: { await outbox.followedDestinations },
            acknowledge: { await outbox.acknowledge(id: $0, destination: $1, outcome: $2, answer: $3) },
            sendTest: { destinations, timeout in
                await outbox.sendTest(
                    AlertContent.test.stamped(id: UUID(), created: Date()),
                    to: destinations,
                    timeout: timeout
                )
            },
            rules: { await outbox.rules.all },
            setRule: { await outbox.setRule(device: $0, events: $1) }
        )
        let (ready, readyContinuation) = AsyncStream<Void>.makeStream()
        let server = VarlinkServer(
            listener: .path(path, permissions: 0o600),
            interfaces: [
                PeerScanInterface(store: store, epoch: "e", history: history, controlGroup: nil, alerts: access) { _ in
                    0
                }
            ],
            info: .init(vendor: "peerscan", product: "peerscand", version: "test", url: "test"),
            logger: .silent,
            ready: { readyContinuation.yield() }
        )
        task = Task { try await server.run() }
        for await _ in ready { break }
    }

    func stop() async {
        task?.cancel()
        _ = try? await task?.value
    }
}

private func makeAlert(_ number: Int) -> Alert {
    AlertContent.test.stamped(
        id: UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", number))!,
        created: Date(timeIntervalSince1970: 1_800_000_000)
    )
}

/// Follows the alerts for `destinations` on a connection of its own, handing each reply's alert to `received` until
/// it returns `false`; returns the error that ended the call, if any.
private func follow(
    _ path: String,
    _ destinations: [String],
    _ received: @escaping @Sendable (PeerScanWire.FollowAlertsReply) async -> Bool
) async -> VarlinkError? {
    do {
        try await VarlinkClientConnection.withConnection(to: path) { connection in
            try await connection.callMore(
                "io.peerscan.FollowAlerts",
                PeerScanWire.FollowAlertsParameters(destinations: destinations)
            ) { reply in
                await received(try reply.parameters(as: PeerScanWire.FollowAlertsReply.self))
            }
        }
        return nil
    } catch {
        return error as? VarlinkError
    }
}

private func call<Reply: Decodable & Sendable>(
    _ path: String,
    _ method: String,
    _ parameters: some Encodable,
    as: Reply.Type
)
    async throws -> Reply
{
    try await VarlinkClientConnection.withConnection(to: path) { connection in
        try await connection.call("io.peerscan." + method, parameters, as: Reply.self)
    }
}

@Suite(.timeLimit(.minutes(1))) struct AlertMethodsTests {
    @Test func followAlertsOffersThePendingThenTheNewAndASecondFollowerReplacesTheFirst() async throws {
        var daemon = AlertDaemon()
        await daemon.start()
        _ = await daemon.outbox.follow(["json://hook/"])
        await daemon.outbox.add(makeAlert(1))
        let path = daemon.path
        let outbox = daemon.outbox
        let firstReplies = AsyncStream<PeerScanWire.FollowAlertsReply>.makeStream()
        let first = Task {
            await follow(path, ["json://hook/"]) { reply in
                firstReplies.continuation.yield(reply)
                return true
            }
        }
        var replies = firstReplies.stream.makeAsyncIterator()
        #expect(await replies.next()?.alert.id == makeAlert(1).id.uuidString.lowercased(), "pending")
        await outbox.add(makeAlert(2))
        #expect(await replies.next()?.alert.id == makeAlert(2).id.uuidString.lowercased(), "new")

        let empty = PeerScanWire.EmptyReply.self
        let ack = PeerScanWire.AckAlertParameters(
            id: makeAlert(1).id.uuidString,
            destination: "json://hook/",
            outcome: "sent"
        )
        _ = try await call(path, "AckAlert", ack, as: empty)
        #expect(await outbox.pending(for: "json://hook/").map(\.id) == [makeAlert(2).id])
        let unknown = await #expect(throws: VarlinkError.self) {
            _ = try await call(
                path,
                "AckAlert",
                PeerScanWire.AckAlertParameters(id: ack.id, destination: "json://other/", outcome: "sent"),
                as: empty
            )
        }
        #expect(unknown?.name == PeerScanWire.unknownDestinationError)
        let badOutcome = await #expect(throws: VarlinkError.self) {
            _ = try await call(
                path,
                "AckAlert",
                PeerScanWire.AckAlertParameters(id: ack.id, destination: "json://hook/", outcome: "maybe"),
                as: empty
            )
        }
        #expect(badOutcome == .invalidParameter("outcome"))

        let second = Task { await follow(path, ["json://hook/"]) { _ in false } }
        #expect(await first.value?.name == PeerScanWire.alertSenderReplacedError)
        _ = await second.value
        await daemon.stop()
    }

    @Test func sendTestAlertNeedsASenderAndReturnsEachDestinationsAnswer() async throws {
        var daemon = AlertDaemon()
        await daemon.start()
        let path = daemon.path
        let noSender = await #expect(throws: VarlinkError.self) {
            _ = try await call(
                path,
                "SendTestAlert",
                PeerScanWire.SendTestAlertParameters(),
                as: PeerScanWire.SendTestAlertReply.self
            )
        }
        #expect(noSender?.name == PeerScanWire.noAlertSenderError)

        // A sender that answers the test alert for one destination and leaves the other unanswered.
        let sender = Task {
            await follow(path, ["json://a/", "json://b/"]) { reply in
                guard reply.destination == "json://a/" else { return true }
                let ack = PeerScanWire.AckAlertParameters(
                    id: reply.alert.id,
                    destination: reply.destination,
                    outcome: "rejected",
                    answer: "401 Unauthorized"
                )
                _ = try? await call(path, "AckAlert", ack, as: PeerScanWire.EmptyReply.self)
                return true
            }
        }
        #expect(await eventually { await daemon.outbox.followedDestinations != nil })
        let reply = try await call(
            path,
            "SendTestAlert",
            PeerScanWire.SendTestAlertParameters(timeout: 1),
            as: PeerScanWire.SendTestAlertReply.self
        )
        #expect(
            reply.results == [
                .init(destination: "json://a/", outcome: "rejected", answer: "401 Unauthorized"),
                .init(destination: "json://b/", outcome: "timeout"),
            ]
        )
        #expect(await daemon.outbox.undeliveredCount == 0, "a test is not sent late")
        let unknown = await #expect(throws: VarlinkError.self) {
            _ = try await call(
                path,
                "SendTestAlert",
                PeerScanWire.SendTestAlertParameters(destination: "json://c/"),
                as: PeerScanWire.SendTestAlertReply.self
            )
        }
        #expect(unknown?.name == PeerScanWire.unknownDestinationError)
        sender.cancel()
        await daemon.stop()
    }

    @Test func anAnswerIsKeptToItsFirst512BytesWholeCharactersOnly() {
        let answer = "200 OK " + String(repeating: "é", count: 400)  // 2 bytes each
        let kept = PeerScanInterface.answerPrefix(answer)
        #expect(kept.utf8.count == 511 && answer.hasPrefix(kept))
        #expect(PeerScanInterface.answerPrefix("201 Created") == "201 Created")
    }

    @Test func rulesAreSetListedAndRemoved() async throws {
        var daemon = AlertDaemon()
        await daemon.start()
        let path = daemon.path
        let device = "00000000-0000-0000-0001-000000000001"
        let empty = PeerScanWire.EmptyReply.self
        _ = try await call(
            path,
            "SetAlertRule",
            PeerScanWire.SetAlertRuleParameters(device: device, events: ["online", "offline"]),
            as: empty
        )
        _ = try await call(
            path,
            "SetAlertRule",
            PeerScanWire.SetAlertRuleParameters(device: nil, events: []),
            as: empty
        )
        let listed = try await call(
            path,
            "ListAlertRules",
            [String: String](),
            as: PeerScanWire.ListAlertRulesReply.self
        )
        #expect(listed.rules.map(\.device) == [nil, device])
        #expect(listed.rules.map(\.events) == [[], ["offline", "online"]])
        let invalid = await #expect(throws: VarlinkError.self) {
            _ = try await call(
                path,
                "SetAlertRule",
                PeerScanWire.SetAlertRuleParameters(device: nil, events: ["sometimes"]),
                as: empty
            )
        }
        #expect(invalid == .invalidParameter("events"))
        _ = try await call(
            path,
            "SetAlertRule",
            PeerScanWire.SetAlertRuleParameters(device: device, events: nil),
            as: empty
        )
        let after = try await call(
            path,
            "ListAlertRules",
            [String: String](),
            as: PeerScanWire.ListAlertRulesReply.self
        )
        #expect(after.rules.map(\.device) == [nil])
        await daemon.stop()
    }
}
