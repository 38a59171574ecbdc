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

    /// An important device's lines are the same messages at warning, with every key of the plain one and
    /// `important`: an alert rule on the message text keeps matching, `journalctl -p warning` shows them.
    @Test func theAlertingVariantsAreTheSameMessagesAtWarningWithImportant() {
        for message in [LogMessage.newDevice, .deviceOnline, .deviceOffline] {
            let alerting = LogMessage.alerting(message)
            #expect(alerting != message)
            #expect(alerting.text == message.text && alerting.level == .warning)
            #expect(alerting.keys == message.keys + ["important"])
            #expect(LogMessage.catalogue.contains(alerting))
        }
        #expect(LogMessage.alerting(.deviceRemoved) == .deviceRemoved, "no variant: the message itself")
        #expect(LogMessage.addressConflict.level == .warning && LogMessage.addressConflict.keys.contains("important"))
    }

    @Test func anEntryDescribesItselfAsALogfmtLikeLine() {
        let entry = LogEntry(.addressConflict, ["mac": "aa", "address": "10.0.0.1", "mac.previous": "bb"])
        #expect(entry.description == "address conflict address=10.0.0.1 mac=aa mac.previous=bb")
    }
}
