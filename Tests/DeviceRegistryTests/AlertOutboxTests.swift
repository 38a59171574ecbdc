// The alerts' outbox: written before offered, offered again after a restart in order, acknowledged once, expired
// and bounded with a log line.

import Foundation
import InMemoryLogging
import Logging
import PeerScanCore
import PeerScanModel
import TestSupport
import Testing

@testable import DeviceRegistry

private let created = Date(timeIntervalSince1970: 1_800_000_000)

private func makeAlert(_ number: Int, at date: Date = created) -> Alert {
    Alert(
        id: UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", number))!,
        event: .offline,
        created: date,
        device: DeviceID(UUID(uuidString: "00000000-0000-0000-0001-000000000001")!),
        title: "nas is offline",
        message: "nas stopped answering.",
        priority: .high,
        tags: ["red_circle"],
        link: "/devices/00000000-0000-0000-0001-000000000001",
        fields: ["name": "nas", "alert": "\(number)"]
    )
}

/// An outbox over a registry at `path`, and its log lines.
private func openOutbox(
    _ path: String?,
    limits: AlertOutbox.Limits = .init()
) -> (AlertOutbox, InMemoryLogHandler) {
    let logs = InMemoryLogHandler()
    let logger = Logger(label: "t") { _ in logs }
    let registry = DeviceRegistry(path: path, forgetAfter: .seconds(86400), now: created, logger: logger)
    return (AlertOutbox(registry: registry, limits: limits, logger: logger), logs)
}

@Suite struct AlertOutboxTests {
    @Test func alertsNotAcknowledgedAreOfferedAgainAfterAReopeningInOrderAndNoneOnceAcknowledged() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/registry.sqlite"
            let (outbox, logs) = openOutbox(path)
            _ = await outbox.follow(["ntfys://ntfy.example/a", "json://hook.example/"])
            for number in 1...3 { await outbox.add(makeAlert(number)) }
            #expect(logs.entries.filter { $0.message == "alert queued" }.count == 3)
            #expect(
                await outbox.acknowledge(
                    id: makeAlert(1).id,
                    destination: "json://hook.example/",
                    outcome: .sent,
                    answer: nil
                )
            )

            let (reopened, _) = openOutbox(path)
            let pending = await reopened.follow(["ntfys://ntfy.example/a", "json://hook.example/"]).pending
            #expect(pending.map(\.alert.fields["alert"]) == ["1", "2", "2", "3", "3"])
            #expect(pending.map(\.destination).first == "ntfys://ntfy.example/a", "the alert 1 only there")
            #expect(pending.first?.alert == makeAlert(1), "whole, as written")
            for (destination, alert) in pending {
                #expect(
                    await reopened.acknowledge(id: alert.id, destination: destination, outcome: .sent, answer: "200 OK")
                )
            }
            #expect(
                await reopened.acknowledge(
                    id: makeAlert(2).id,
                    destination: "json://hook.example/",
                    outcome: .sent,
                    answer: nil
                ) == false,
                "once"
            )
            let (again, _) = openOutbox(path)
            #expect(await again.follow(["ntfys://ntfy.example/a", "json://hook.example/"]).pending.isEmpty)
            #expect(await again.undeliveredCount == 0)
        }
    }

    @Test func aDestinationNamedForTheFirstTimeGetsOnlyAlertsFromThenOn() async {
        let (outbox, logs) = openOutbox(nil)
        await outbox.add(makeAlert(1))
        #expect(logs.entries.last?.metadata["destinations"] == "", "no sender yet: not kept")
        _ = await outbox.follow(["json://a/"])
        await outbox.add(makeAlert(2))
        let pending = await outbox.follow(["json://a/", "json://b/"]).pending
        #expect(pending.map(\.alert.id) == [makeAlert(2).id])
        await outbox.add(makeAlert(3))
        #expect(await outbox.pending(for: "json://b/").map(\.id) == [makeAlert(3).id])
    }

    @Test func aNewAlertGoesToTheFollowerAndASecondFollowerReplacesTheFirst() async {
        let (outbox, _) = openOutbox(nil)
        let first = await outbox.follow(["json://a/"]).updates
        await outbox.add(makeAlert(1))
        _ = await outbox.follow(["json://a/"])
        var events: [AlertFeedEvent] = []
        for await event in first { events.append(event) }
        #expect(events == [.alert(destination: "json://a/", makeAlert(1)), .replaced])
    }

    @Test func aRejectedAlertIsRemovedAndLoggedAsFinal() async {
        let (outbox, logs) = openOutbox(nil)
        _ = await outbox.follow(["json://a/"])
        await outbox.add(makeAlert(1))
        #expect(
            await outbox.acknowledge(
                id: makeAlert(1).id,
                destination: "json://a/",
                outcome: .rejected,
                answer: "400 Bad Request"
            )
        )
        let rejected = logs.entries.first { $0.message == "alert rejected" }
        #expect(rejected?.metadata["destination"] == "json://a/")
        #expect(rejected?.metadata["answer"] == "400 Bad Request")
        #expect(await outbox.undeliveredCount == 0)
        #expect(outbox.outcomes.current == [.init(destination: "json://a/", outcome: .rejected, count: 1)])
    }

    @Test func alertsOlderThanTheExpiryAreDroppedWithALogLine() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/registry.sqlite"
            let (outbox, logs) = openOutbox(path, limits: .init(expiry: .seconds(3600)))
            _ = await outbox.follow(["json://a/"])
            await outbox.add(makeAlert(1, at: created))
            await outbox.add(makeAlert(2, at: created + 1800))
            await outbox.expire(now: created + 3601)
            let dropped = logs.entries.filter { $0.message == "alert dropped" }
            #expect(dropped.map { $0.metadata["id"]?.description } == [makeAlert(1).id.uuidString.lowercased()])
            #expect(dropped.first?.metadata["reason"] == "expired")
            #expect(outbox.outcomes.current == [.init(destination: "json://a/", outcome: .dropped, count: 1)])
            let (reopened, _) = openOutbox(path)
            #expect(await reopened.follow(["json://a/"]).pending.map(\.alert.id) == [makeAlert(2).id])
        }
    }

    @Test func beyondTheMostUndeliveredTheOldestIsDropped() async {
        let (outbox, logs) = openOutbox(nil, limits: .init(maximumUndelivered: 3))
        _ = await outbox.follow(["json://a/"])
        for number in 1...5 { await outbox.add(makeAlert(number)) }
        #expect(await outbox.undeliveredCount == 3)
        #expect(await outbox.pending(for: "json://a/").map(\.fields["alert"]) == ["3", "4", "5"])
        let dropped = logs.entries.filter { $0.message == "alert dropped" }
        #expect(dropped.map { $0.metadata["reason"]?.description } == ["outbox-full", "outbox-full"])
    }

    @Test func rulesSurviveAReopening() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/registry.sqlite"
            let (outbox, _) = openOutbox(path)
            let device = DeviceID(UUID(uuidString: "00000000-0000-0000-0001-000000000001")!)
            await outbox.setRule(device: device, events: [.online, .offline])
            await outbox.setRule(device: nil, events: [])
            await outbox.setRule(device: nil, events: [.newDevice])
            let (reopened, _) = openOutbox(path)
            #expect(
                await reopened.rules.all == [
                    AlertRule(device: nil, events: [.newDevice]),
                    AlertRule(device: device, events: [.offline, .online]),
                ]
            )
            await reopened.setRule(device: device, events: nil)
            let (third, _) = openOutbox(path)
            #expect(await third.rules.all == [AlertRule(device: nil, events: [.newDevice])])
        }
    }
}
