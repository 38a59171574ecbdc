// Quiet hours in the outbox, on a manual clock: the hold's order and not-before times as a value, then the outbox
// holding an alert, offering it when they end, keeping it over a reopening, and counting its expiry from then.

import Foundation
import InMemoryLogging
import Logging
import PeerScanCore
import PeerScanModel
import TestSupport
import Testing

@testable import DeviceRegistry

private let created = Date(timeIntervalSince1970: 1_800_000_000)
private let end = created + 3600  // the quiet hours' end

private func makeAlert(_ number: Int, event: AlertEvent = .offline, at date: Date = created) -> Alert {
    Alert(
        id: UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", number))!,
        event: event,
        created: date,
        device: nil,
        title: "alert \(number)",
        message: "",
        priority: .default,
        tags: [],
        link: nil,
        fields: ["alert": "\(number)"]
    )
}

private func openOutbox(
    _ path: String?,
    limits: AlertOutbox.Limits = .init(),
    now: Date = created
) -> (AlertOutbox, InMemoryLogHandler) {
    let logs = InMemoryLogHandler()
    let logger = Logger(label: "t") { _ in logs }
    let registry = DeviceRegistry(path: path, forgetAfter: .seconds(86400), now: created, logger: logger)
    return (AlertOutbox(registry: registry, limits: limits, logger: logger, now: now), logs)
}

/// The alerts' numbers (`fields["alert"]`) of what a follower received until now.
private func received(_ updates: AsyncStream<AlertFeedEvent>, count: Int) async -> [String] {
    var numbers: [String] = []
    for await event in updates {
        if case .alert(_, let alert) = event { numbers.append(alert.fields["alert"] ?? "") }
        if numbers.count == count { break }
    }
    return numbers
}

@Suite struct AlertHoldTests {
    @Test func aHeldAlertIsDueAtItsNotBeforeAndTheFirstOnesGoFirst() {
        var hold = AlertHold()
        #expect(hold.write(1, notBefore: end, now: created).isEmpty)
        #expect(hold.write(2, notBefore: end + 60, now: created).isEmpty)
        #expect(hold.write(3, notBefore: end + 60, now: end + 60).isEmpty, "due already: not held")
        #expect(!hold.contains(3))
        #expect(hold.nextRelease == end)
        #expect(hold.release(at: end - 1).isEmpty)
        #expect(hold.release(at: end).map(\.seq) == [1])
        #expect(hold.nextRelease == end + 60)
        #expect(hold.release(at: end + 3600).map(\.seq) == [2])
        #expect(hold.nextRelease == nil)
    }

    @Test func aLaterAlertThatMayGoEarlierBringsTheEarlierOnesDownToItsTime() {
        var hold = AlertHold()
        _ = hold.write(1, notBefore: end + 600, now: created)
        _ = hold.write(2, notBefore: end + 300, now: created)
        #expect(hold.held.map(\.notBefore) == [end + 300, end + 300], "1 goes no later than 2")
        let lowered = hold.write(3, notBefore: end, now: created)
        #expect(lowered == [.init(seq: 1, notBefore: end), .init(seq: 2, notBefore: end)])
        let overtaken = hold.write(4, notBefore: created + 10, now: created + 10)
        #expect(overtaken.map(\.seq) == [1, 2, 3], "an alert going at once releases those before it")
        #expect(hold.release(at: created + 10).map(\.seq) == [1, 2, 3])
    }

    @Test func aRemovedAlertIsNoLongerHeld() {
        var hold = AlertHold()
        _ = hold.write(1, notBefore: end, now: created)
        _ = hold.write(2, notBefore: end, now: created)
        hold.remove(1)
        #expect(!hold.contains(1))
        #expect(hold.release(at: end).map(\.seq) == [2])
    }
}

@Suite struct AlertOutboxQuietHoursTests {
    @Test func aHeldAlertIsQueuedAtOnceAndOfferedWhenTheQuietHoursEndInOrderWithTheRest() async {
        let (outbox, logs) = openOutbox(nil)
        let updates = await outbox.follow(["json://a/"], now: created).updates
        await outbox.add(makeAlert(1), notBefore: end, now: created)
        await outbox.add(makeAlert(2, event: .online), notBefore: end, now: created)
        let queued = logs.entries.filter { $0.message == "alert queued" }
        #expect(queued.count == 2, "queued when decided")
        #expect(queued.first?.metadata["not.before"] == "2027-01-15T09:00:00.000Z")
        #expect(await outbox.pending(for: "json://a/").count == 2, "kept for its destination")
        #expect(await outbox.follow(["json://a/"], now: created + 60).pending.isEmpty, "not offered before the end")
        let second = await outbox.follow(["json://a/"], now: created + 60).updates
        await outbox.releaseDue(at: end - 1)
        #expect(await outbox.heldCount == 2)
        await outbox.releaseDue(at: end)
        await outbox.add(makeAlert(3), now: end + 1)
        #expect(await received(second, count: 3) == ["1", "2", "3"])
        #expect(await outbox.heldCount == 0)
        _ = updates
    }

    @Test func anAlertDueAtOnceReleasesTheHeldOnesBeforeItWhateverTheTimer() async {
        let (outbox, _) = openOutbox(nil)
        let updates = await outbox.follow(["json://a/"], now: created).updates
        await outbox.add(makeAlert(1), notBefore: end, now: created)
        await outbox.add(makeAlert(2), now: end + 1)  // quiet hours over, the timer not fired yet
        #expect(await received(updates, count: 2) == ["1", "2"])
    }

    @Test func aTestAlertIsNeverHeldAndReleasesNothing() async {
        let (outbox, _) = openOutbox(nil)
        let updates = await outbox.follow(["json://a/"], now: created).updates
        await outbox.add(makeAlert(1), notBefore: end, now: created)
        _ = await outbox.addTest(makeAlert(2, event: .test), for: ["json://a/"])
        #expect(await received(updates, count: 1) == ["2"], "the test at once, the held alert not")
        #expect(await outbox.heldCount == 1)
    }

    @Test func aReopeningInQuietHoursStillHoldsTheAlertUntilTheyEnd() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/registry.sqlite"
            let (outbox, _) = openOutbox(path)
            _ = await outbox.follow(["json://a/"], now: created)
            await outbox.add(makeAlert(1), notBefore: end, now: created)

            let (reopened, _) = openOutbox(path, now: created + 600)
            #expect(await reopened.heldCount == 1)
            #expect(await reopened.nextRelease == end)
            let following = await reopened.follow(["json://a/"], now: created + 600)
            #expect(following.pending.isEmpty, "still held after the restart")
            await reopened.releaseDue(at: end)
            #expect(await received(following.updates, count: 1) == ["1"])

            let (afterwards, _) = openOutbox(path, now: end + 60)
            #expect(await afterwards.heldCount == 0)
            #expect(await afterwards.follow(["json://a/"], now: end + 60).pending.map(\.alert.fields["alert"]) == ["1"])
        }
    }

    @Test func theExpiryOfAHeldAlertCountsFromTheEndOfTheQuietHours() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/registry.sqlite"
            let (outbox, logs) = openOutbox(path, limits: .init(expiry: .seconds(7200)))
            _ = await outbox.follow(["json://a/"], now: created)
            await outbox.add(makeAlert(1), now: created)
            await outbox.add(makeAlert(2), notBefore: end + 3600, now: created + 1)
            await outbox.expire(now: created + 7201)
            let dropped = logs.entries.filter { $0.message == "alert dropped" }
            #expect(dropped.map { $0.metadata["id"]?.description } == [makeAlert(1).id.uuidString.lowercased()])
            await outbox.expire(now: end + 3600 + 7199)
            #expect(await outbox.undeliveredCount == 1, "2 h after the end, not after its creation")
            let (reopened, reopenedLogs) = openOutbox(path, limits: .init(expiry: .seconds(7200)), now: end + 3600)
            await reopened.expire(now: end + 3600 + 7201)
            #expect(reopenedLogs.entries.filter { $0.message == "alert dropped" }.count == 1)
            #expect(await reopened.undeliveredCount == 0)
        }
    }
}
