import TestSupport
import Testing

@testable import VarlinkServer

@Suite("VarlinkServer: connection limits")
struct ConnectionLimitsTests {
    let limits = ConnectionLimits(
        maximumConnections: 10,
        reservedConnections: 3,
        maximumConnectionsPerUser: 4,
        maximumQueuedBytes: 1024
    )

    @Test("one user gets its share; others still get in; the reserved room is for privileged peers only")
    func admission() {
        let ledger = ConnectionLedger(limits: limits)
        for _ in 0..<4 { #expect(ledger.admit(uid: 1000, privileged: false) == nil) }
        #expect(ledger.admit(uid: 1000, privileged: false) == .connectionsPerUser)
        #expect(ledger.admit(uid: 1001, privileged: false) == nil)
        #expect(ledger.admit(uid: 1001, privileged: false) == nil)
        #expect(ledger.admit(uid: 1002, privileged: false) == nil)
        // 7 of 10 in use: the last 3 are reserved.
        #expect(ledger.admit(uid: 1003, privileged: false) == .connections)
        for _ in 0..<3 { #expect(ledger.admit(uid: 0, privileged: true) == nil) }
        #expect(ledger.admit(uid: 0, privileged: true) == .connections, "the total holds for everyone")
        ledger.release(uid: 1000)
        #expect(ledger.admit(uid: 1000, privileged: false) == .connections, "freed room is privileged room now")
        for _ in 0..<3 { ledger.release(uid: 0) }
        #expect(ledger.admit(uid: 1000, privileged: false) == nil, "6 in use: below the unreserved 7")
    }

    @Test("privileged peers have no per-user cap")
    func privilegedPeersAreNotCappedPerUser() {
        let ledger = ConnectionLedger(limits: limits)
        for _ in 0..<10 { #expect(ledger.admit(uid: 0, privileged: true) == nil) }
    }

    @Test("the default connection limit leaves 64 descriptors of the open-file limit free, at most 4096")
    func fileLimit() {
        let connections = ConnectionLimits.connectionsForFileLimit()
        #expect(connections >= 16 && connections <= 4096)
    }

    @Test("a message left unfinished is cut off after the timeout; a finished one keeps an idle connection open")
    func incompleteMessage() async throws {
        var limits = ConnectionLimits()
        limits.incompleteMessageTimeout = .milliseconds(300)
        try await withTestServer(limits: limits) { server in
            let idle = try RawSocket(connectingTo: server.path)
            try await idle.send(message: #"{"method":"org.example.test.Echo","parameters":{"text":"a"}}"#)
            #expect(try await idle.readMessage() != nil)
            let stalled = try RawSocket(connectingTo: server.path)
            try await stalled.send(Array(#"{"method":"org.example.test.Echo","#.utf8))
            #expect(try await stalled.readMessagesUntilClosed().isEmpty, "closed without a reply")
            try await Task.sleep(for: .milliseconds(500))
            try await idle.send(message: #"{"method":"org.example.test.Echo","parameters":{"text":"b"}}"#)
            #expect(try await idle.readMessage()?.contains("b") == true, "the idle one was left alone")
        }
    }
}
