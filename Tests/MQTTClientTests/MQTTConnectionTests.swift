// The connection without a real broker: what libmosquitto refuses in a configuration, what fails while disconnected,
// a refused connection reported and retried, a stop that ends the events at once; and against a fake broker of
// one connection: connected, a publication written, the DISCONNECT written by stop.

import Foundation
import TestSupport
import Testing

@testable import MQTTClient

@Suite(.timeLimit(.minutes(1))) struct MQTTConnectionTests {
    static func configuration(port: Int, tls: MQTTTLS? = nil, will: MQTTMessage? = nil) -> MQTTConfiguration {
        MQTTConfiguration(
            host: "127.0.0.1",
            port: port,
            clientID: "peerscan-test",
            tls: tls,
            will: will,
            reconnectDelay: .milliseconds(10) ... .milliseconds(40)
        )
    }

    @Test func anUnreadableCertificateAuthorityIsRefusedAtCreation() {
        #expect {
            try MQTTConnection(configuration: Self.configuration(port: 1, tls: MQTTTLS(caFile: "/nonexistent/ca.pem")))
        } throws: { error in
            guard case .library(let operation, _, _) = error as? MQTTError else { return false }
            return operation == "TLS files"
        }
    }

    @Test func aWillOnAWildcardTopicIsRefusedAtCreation() {
        let will = MQTTMessage(topic: "peerscan/#", payload: Array("offline".utf8))
        #expect {
            try MQTTConnection(configuration: Self.configuration(port: 1, will: will))
        } throws: { error in
            guard case .library(let operation, _, _) = error as? MQTTError else { return false }
            return operation == "will"
        }
    }

    @Test func publishingWhileDisconnectedFailsAndNamesTheTopic() throws {
        let connection = try MQTTConnection(configuration: Self.configuration(port: try closedPort()))
        #expect {
            try connection.publish(MQTTMessage(topic: "peerscan/x", payload: [1]))
        } throws: { error in
            guard case .library(let operation, _, let message) = error as? MQTTError else { return false }
            return operation == "publish peerscan/x" && !message.isEmpty
                && (error as? MQTTError)?.description == "publish peerscan/x: \(message)"
        }
    }

    @Test func aStopWithoutAStartEndsTheEventsAtOnce() async throws {
        let connection = try MQTTConnection(configuration: Self.configuration(port: try closedPort()))
        await connection.stop()
        #expect(await collect(connection.events) == [])
    }

    @Test func aRefusedConnectionIsReportedAndRetriedUntilStopped() async throws {
        let connection = try MQTTConnection(configuration: Self.configuration(port: try closedPort()))
        connection.start()
        var reasons: [String] = []
        for await event in connection.events {
            guard case .disconnected(let reason) = event else { continue }
            reasons.append(reason)
            if reasons.count == 3 { break }
        }
        #expect(reasons.count == 3, "three attempts, each refused: the backoff (10 ms, then 20, 40) retried")
        #expect(reasons.allSatisfy { $0 == reasons[0] && !$0.isEmpty })
        await connection.stop()
        #expect(await collect(connection.events) != nil, "stop ended the events")
    }

    @Test func aPublicationIsWrittenAndStopWritesTheDisconnect() async throws {
        let broker = try FakeBroker()
        let connection = try MQTTConnection(configuration: Self.configuration(port: broker.port))
        connection.start()
        var events = connection.events.makeAsyncIterator()
        #expect(await events.next() == .connected(protocolVersion: 5))
        let message = MQTTMessage(topic: "peerscan/a", payload: Array("on".utf8), qos: 0)
        let messageID = try connection.publish(message)
        #expect(await events.next() == .published(messageID: messageID), "a QoS 0 message is published once written")
        #expect(await eventually { broker.packets.contains { $0.type == FakeBroker.publish } })
        let publish = try #require(broker.packets.first { $0.type == FakeBroker.publish })
        // Topic length, topic, no properties (MQTT 5), payload.
        #expect(publish.body == [0, 10] + Array("peerscan/a".utf8) + [0] + Array("on".utf8))
        await connection.stop()
        #expect(await eventually { broker.isClosed }, "the client closed the connection")
        #expect(broker.packets.map(\.type) == [FakeBroker.connect, FakeBroker.publish, FakeBroker.disconnect])
        #expect(await events.next() == nil, "stop ended the events")
    }
}

@Suite struct MQTTValueTests {
    @Test func aConfigurationDefaultsToAThirtySecondKeepAliveAndAShortBackoff() {
        let configuration = MQTTConfiguration(host: "broker", port: 1883, clientID: "peerscan-host")
        #expect(configuration.keepAlive == 30)
        #expect(configuration.reconnectDelay == .milliseconds(250) ... .seconds(4))
        #expect(configuration.credentials == nil && configuration.tls == nil && configuration.will == nil)
    }

    @Test func anErrorReadsAsItsOperationAndMessage() {
        let error = MQTTError.library(operation: "subscribe a/#", code: 4, message: "not connected")
        #expect(error.description == "subscribe a/#: not connected")
        #expect(error != MQTTError.library(operation: "subscribe a/#", code: 5, message: "not connected"))
    }

    @Test func theLibrarysTextForACode() {
        #expect(MQTTConnection.message(0) == "No error.")
        #expect(MQTTConnection.message(4) == "The client is not currently connected.")
    }
}
