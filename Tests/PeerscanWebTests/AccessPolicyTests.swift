import Testing

@testable import PeerscanWeb

@Suite struct AccessPolicyTests {
    let policy = AccessPolicy(token: BearerToken("s3cret-token"), hosts: HostAllowlist(extraNames: ["scanner.lan"]))

    @Test func readsOnALoopbackListenerNeedNoToken() {
        #expect(
            policy.decide(host: "127.0.0.1:8737", authorization: nil, access: .read, listenerIsLoopback: true)
                == .allowed
        )
    }

    @Test func readsOnAnyOtherListenerNeedTheToken() {
        #expect(
            policy.decide(host: "localhost", authorization: nil, access: .read, listenerIsLoopback: false)
                == .unauthorized
        )
        #expect(
            policy.decide(
                host: "localhost",
                authorization: "Bearer s3cret-token",
                access: .read,
                listenerIsLoopback: false
            )
                == .allowed
        )
    }

    @Test(arguments: [
        nil, "", "Bearer", "Bearer ", "Bearer s3cret-toke", "Bearer s3cret-token2", "Basic s3cret-token",
        "Bearer S3CRET-TOKEN", "bearer  s3cret-token",
    ])
    func writesWithoutTheRightTokenAreRefused(authorization: String?) {
        #expect(
            policy.decide(host: "localhost", authorization: authorization, access: .write, listenerIsLoopback: true)
                == .unauthorized
        )
    }

    @Test(arguments: ["Bearer s3cret-token", "bearer s3cret-token", "BEARER s3cret-token"])
    func writesWithTheTokenAreAllowed(authorization: String) {
        #expect(
            policy.decide(host: "localhost", authorization: authorization, access: .write, listenerIsLoopback: true)
                == .allowed
        )
    }

    @Test(arguments: [nil, "", "evil.example", "evil.example:8737", "127.0.0.2", "localhost.evil.example", "[::2]:80"])
    func aForeignHostIsMisdirectedEvenWithTheToken(host: String?) {
        #expect(
            policy.decide(host: host, authorization: "Bearer s3cret-token", access: .read, listenerIsLoopback: true)
                == .misdirected
        )
    }

    @Test(arguments: [
        "localhost", "LOCALHOST:8737", "127.0.0.1", "127.0.0.1:8737", "[::1]", "[::1]:8737", "scanner.lan",
        "Scanner.LAN:443",
    ])
    func allowedHosts(host: String) {
        #expect(HostAllowlist(extraNames: ["scanner.lan"]).allows(host: host))
    }

    @Test func constantTimeEqualityComparesEveryByte() {
        #expect(BearerToken.constantTimeEqual(Array("abc".utf8), Array("abc".utf8)))
        #expect(!BearerToken.constantTimeEqual(Array("abc".utf8), Array("abd".utf8)))
        #expect(!BearerToken.constantTimeEqual(Array("abc".utf8), Array("ab".utf8)))
        #expect(!BearerToken.constantTimeEqual([], Array("a".utf8)))
        // Lengths differing by a multiple of 256 must still differ.
        #expect(!BearerToken.constantTimeEqual([UInt8](repeating: 0, count: 256), []))
    }

    @Test func thePagesOwnFilesNeedNoTokenOnAnyListenerButAnAllowedHost() {
        for isLoopback in [true, false] {
            #expect(
                policy.decide(host: "scanner.lan", authorization: nil, access: .page, listenerIsLoopback: isLoopback)
                    == .allowed
            )
        }
        #expect(
            policy.decide(host: "evil.example", authorization: nil, access: .page, listenerIsLoopback: false)
                == .misdirected
        )
        #expect(WebRoute(method: "GET", path: "/").access == .page)
        #expect(WebRoute(method: "GET", path: "/assets/app.js").access == .page)
        #expect(WebRoute(method: "GET", path: "/api/snapshot").access == .read)
        #expect(WebRoute(method: "GET", path: "/api/nothing").access == .read)
    }
}
