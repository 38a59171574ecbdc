import Logging
import Testing

@testable import MonitoringLog

@Suite struct LogCatalogueTests {
    @Test func everyMessageIsListedOnceAtOneLevel() {
        let pairs = LogMessage.catalogue.map { "\($0.text)@\($0.level)" }
        #expect(Set(pairs).count == pairs.count, "a message and level listed twice")
    }

    @Test func keysAreLowercaseAndDottedNeverSnakeCase() {
        for message in LogMessage.catalogue {
            for key in message.keys {
                #expect(
                    key.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "." } && !key.hasPrefix(".")
                        && !key.hasSuffix("."),
                    "\(message.text): key \(key)"
                )
            }
            #expect(Set(message.keys).count == message.keys.count, "\(message.text): a key listed twice")
        }
    }

    @Test func anEntryDescribesItselfAsALogfmtLikeLine() {
        let entry = LogEntry(.addressConflict, ["mac": "aa", "address": "10.0.0.1", "mac.previous": "bb"])
        #expect(entry.description == "address conflict address=10.0.0.1 mac=aa mac.previous=bb")
    }
}
