import Foundation
import PeerScanCore
import PeerScanModel

/// Test alerts (`peerscanctl notify test`): written like any other for the destinations asked, never held by quiet
/// hours, and removed when the answers are in or the wait ends.
extension AlertOutbox {
    /// Writes a test alert for `destinations` and offers it; the answers come in the stream returned (which ends once
    /// each destination answered, or ``finishTest(_:)`` is called).
    func addTest(_ alert: Alert, for destinations: [String]) -> AsyncStream<AlertTestAnswer> {
        let (stream, continuation) = AsyncStream<AlertTestAnswer>.makeStream()
        tests[alert.id] = continuation
        _ = add(alert, for: destinations)
        return stream
    }

    /// Writes a test alert for `destinations`, offers it, and waits up to `timeout` for their answers; the alert
    /// goes from the outbox then (a test is not sent late).
    ///
    /// - Returns: Each destination's answer, in the order given (no outcome: none in time).
    public func sendTest(_ alert: Alert, to destinations: [String], timeout: Duration) async -> [AlertTestAnswer] {
        let answers = addTest(alert, for: destinations)
        let received = await Self.collect(answers, timeout: timeout)
        finishTest(alert.id)
        return destinations.map { destination in
            received.last { $0.destination == destination }
                ?? AlertTestAnswer(destination: destination, outcome: nil, answer: nil)
        }
    }

    /// The answers `stream` brings until it ends or `timeout` passes.
    private nonisolated static func collect(
        _ stream: AsyncStream<AlertTestAnswer>,
        timeout: Duration
    ) async -> [AlertTestAnswer] {
        await withTaskGroup(of: [AlertTestAnswer]?.self) { group in
            group.addTask {
                var all: [AlertTestAnswer] = []
                for await answer in stream { all.append(answer) }  // ends early when cancelled
                return all
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            var collected: [AlertTestAnswer] = []
            while let result = await group.next() {
                group.cancelAll()
                if let result { collected = result }
            }
            return collected
        }
    }

    /// Ends a test: its alert goes from the outbox whether or not every destination answered (a test is not sent
    /// late).
    func finishTest(_ id: UUID) {
        tests.removeValue(forKey: id)?.finish()
        if let seq = seqByID[id] {
            do {
                try database?.updateDeliveries([], finished: [seq])
            } catch {
                log(.registryWriteFailed, ["error": "\(error)"])
            }
            remove(seq)
        }
    }
}
