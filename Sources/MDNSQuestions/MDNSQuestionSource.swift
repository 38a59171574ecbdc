import Discovery
import Logging
import MonitoringLog
import NIOConcurrencyHelpers

/// The question source: asks mDNS hosts whether they are still there (``DiscoverySource/ask(_:)``), by one-shot mDNS
/// queries (``MDNSQuestioner``), and reports each answer as ``NeighbourObservation/hostAnswered(hostName:address:)``.
/// A question nobody answers is reported by no event: the device table's deadline passes.
///
/// At most ``maximumInFlight`` questions are asked at once (the rest wait their turn); a question for a host already
/// being asked is dropped, and so is every question while browsing is off.
public final class MDNSQuestionSource: DiscoverySource {
    public let events: AsyncStream<DiscoveryEvent>
    private let continuation: AsyncStream<DiscoveryEvent>.Continuation
    private let questions: AsyncStream<HostQuestion>
    private let questionsContinuation: AsyncStream<HostQuestion>.Continuation
    private let browsing = NIOLockedValueBox(false)
    /// The host names being asked.
    private let inFlight = NIOLockedValueBox(Set<String>())
    private let questioner: MDNSQuestioner
    private let logger: Logger
    /// The most questions asked at once.
    public let maximumInFlight: Int

    /// Creates the source.
    /// - Parameters:
    ///   - timeout: How long to wait for an answer.
    ///   - maximumInFlight: The most questions asked at once.
    ///   - logger: Where questions (debug) and failures to ask (warning) are reported.
    public init(timeout: Duration = .seconds(3), maximumInFlight: Int = 32, logger: Logger) {
        questioner = MDNSQuestioner(timeout: timeout)
        self.maximumInFlight = max(maximumInFlight, 1)
        self.logger = logger
        (events, continuation) = AsyncStream.makeStream()
        (questions, questionsContinuation) = AsyncStream.makeStream()
    }

    /// Asks the questions as they come, until cancelled.
    public func run() async throws {
        await withTaskGroup(of: Void.self) { group in
            var running = 0  // tasks not awaited yet: those asking, and those done since the last wait
            for await question in questions {
                guard browsing.withLockedValue({ $0 }),
                    inFlight.withLockedValue({ $0.insert(question.hostName).inserted })
                else { continue }
                if running >= maximumInFlight, await group.next() != nil { running -= 1 }
                running += 1
                group.addTask { [self] in
                    await ask(question)
                    _ = inFlight.withLockedValue { $0.remove(question.hostName) }
                }
            }
            group.cancelAll()
        }
        continuation.finish()
    }

    public func setBrowsing(_ enabled: Bool) {
        browsing.withLockedValue { $0 = enabled }
    }

    public func ask(_ question: HostQuestion) {
        questionsContinuation.yield(question)
    }

    private func ask(_ question: HostQuestion) async {
        logger.log(
            .hostAsked,
            ["host": "\(question.hostName)", "interfaces": "\(question.interfaces.joined(separator: ","))"]
        )
        do {
            guard let address = try await questioner.ask(question) else {
                logger.log(.hostUnanswered, ["host": "\(question.hostName)"])
                return
            }
            logger.log(.hostAnswered, ["host": "\(question.hostName)", "address": "\(address)"])
            guard browsing.withLockedValue({ $0 }) else { return }
            continuation.yield(.neighbour(.hostAnswered(hostName: question.hostName, address: address)))
        } catch {
            logger.log(.hostQuestionFailed, ["host": "\(question.hostName)", "error": "\(error)"])
        }
    }
}
