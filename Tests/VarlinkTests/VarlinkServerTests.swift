import Foundation
import Glibc
import TestSupport
import Testing
import Varlink
import VarlinkServer

/// The server's protocol, seen from a client: `org.varlink.service`, the standard errors, `oneway`, `more`,
/// pipelining, and how it treats clients that misbehave. Each test runs its own server on a socket in a fresh
/// directory. Nothing is timed; the time limit only bounds how long a failing test can hang.
@Suite("VarlinkServer: the protocol", .timeLimit(.minutes(1)))
struct VarlinkServerTests {
    typealias Text = TestInterface.Text

    // MARK: org.varlink.service

    @Test("GetInfo reports the service and every interface, org.varlink.service first, then sorted")
    func getInfo() async throws {
        struct Info: Decodable, Equatable {
            var vendor, product, version, url: String
            var interfaces: [String]
        }
        try await withTestServer { server in
            let info = try await VarlinkClientConnection.withConnection(to: server.path) {
                try await $0.call("org.varlink.service.GetInfo", as: Info.self)
            }
            #expect(
                info
                    == Info(
                        vendor: "Example",
                        product: "varlink-tests",
                        version: "1.2.3",
                        url: "https://example.org",
                        interfaces: ["org.varlink.service", "org.example.other", "org.example.test"]
                    )
            )
        }
    }

    @Test("GetInterfaceDescription returns an interface's definition, and org.varlink.service's own")
    func getInterfaceDescription() async throws {
        struct Description: Decodable { var description: String }
        try await withTestServer { server in
            try await VarlinkClientConnection.withConnection(to: server.path) { connection in
                let test = try await connection.call(
                    "org.varlink.service.GetInterfaceDescription",
                    ["interface": "org.example.test"],
                    as: Description.self
                )
                #expect(test.description == TestInterface(recorder: Recorder()).definition)
                let service = try await connection.call(
                    "org.varlink.service.GetInterfaceDescription",
                    ["interface": "org.varlink.service"],
                    as: Description.self
                )
                #expect(service.description.contains("interface org.varlink.service\n"))
                #expect(
                    service.description.contains(
                        "method GetInterfaceDescription(interface: string) -> (description: string)"
                    )
                )
            }
        }
    }

    @Test("GetInterfaceDescription of an unknown interface: InterfaceNotFound naming it")
    func getInterfaceDescriptionUnknown() async throws {
        struct Description: Decodable { var description: String }
        try await withTestServer { server in
            try await VarlinkClientConnection.withConnection(to: server.path) { connection in
                await #expect(throws: VarlinkError.interfaceNotFound("org.example.nothing")) {
                    try await connection.call(
                        "org.varlink.service.GetInterfaceDescription",
                        ["interface": "org.example.nothing"],
                        as: Description.self
                    )
                }
                // Without the parameter: InvalidParameter naming it.
                await #expect(throws: VarlinkError.invalidParameter("interface")) {
                    try await connection.call("org.varlink.service.GetInterfaceDescription", as: Description.self)
                }
            }
        }
    }

    // MARK: Standard errors

    @Test(
        "errors for calls the server cannot answer",
        arguments: [
            ("org.varlink.service.Shutdown", VarlinkError.methodNotFound("org.varlink.service.Shutdown")),
            ("org.example.test.Nothing", VarlinkError.methodNotFound("org.example.test.Nothing")),
            ("org.example.nothing.Echo", VarlinkError.interfaceNotFound("org.example.nothing")),
            ("Echo", VarlinkError.interfaceNotFound("")),
        ]
    )
    func unknownMethods(method: String, error: VarlinkError) async throws {
        try await withTestServer { server in
            try await VarlinkClientConnection.withConnection(to: server.path) { connection in
                await #expect(throws: error) { try await connection.call(method, as: [String: String].self) }
                // The connection is still good.
                let after = try await connection.call("org.example.test.Echo", ["text": "after"], as: Text.self)
                #expect(after.text == "after")
            }
        }
    }

    @Test(
        "InvalidParameter names the parameter of the wrong type, missing, or not declared (that one first)",
        arguments: [
            (#"{"text":5}"#, "text"),
            (#"{"text":null}"#, "text"),
            (#"{}"#, "text"),
            (#"{"other":"x"}"#, "other"),
            (#"[1,2]"#, "parameters"),
            (#""text""#, "parameters"),
        ]
    )
    func invalidParameter(parameters: String, parameter: String) async throws {
        try await withTestServer { server in
            let socket = try RawSocket(connectingTo: server.path)
            try await socket.send(message: callMessage("org.example.test.Echo", parameters))
            let reply = try await socket.readReply()
            #expect(
                reply == [
                    "error": "org.varlink.service.InvalidParameter", "parameters": ["parameter": .string(parameter)],
                ]
            )
        }
    }

    @Test("a call without parameters decodes as empty ones: InvalidParameter for the missing one")
    func missingParametersObject() async throws {
        try await withTestServer { server in
            let socket = try RawSocket(connectingTo: server.path)
            try await socket.send(message: #"{"method":"org.example.test.Echo"}"#)
            #expect(
                try await socket.readReply()
                    == ["error": "org.varlink.service.InvalidParameter", "parameters": ["parameter": "text"]]
            )
        }
    }

    @Test("upgrade: true is answered with MethodNotImplemented, and the connection stays usable")
    func upgrade() async throws {
        try await withTestServer { server in
            let socket = try RawSocket(connectingTo: server.path)
            try await socket.send(messages: [
                #"{"method":"org.example.test.Echo","parameters":{"text":"a"},"upgrade":true}"#,
                callMessage("org.example.test.Echo", #"{"text":"b"}"#),
            ])
            #expect(
                try await socket.readReply()
                    == [
                        "error": "org.varlink.service.MethodNotImplemented",
                        "parameters": ["method": "org.example.test.Echo"],
                    ]
            )
            #expect(try await socket.readReply() == ["parameters": ["text": "b"]])
        }
    }

    @Test("a method's own VarlinkError reaches the client with its parameters")
    func interfaceError() async throws {
        try await withTestServer { server in
            try await VarlinkClientConnection.withConnection(to: server.path) { connection in
                await #expect(
                    throws: VarlinkError("org.example.test.Failed", parameters: ["reason": "broken", "code": "42"])
                ) {
                    try await connection.call("org.example.test.Fail", ["reason": "broken"], as: [String: String].self)
                }
            }
        }
    }

    // MARK: strict calls

    @Test("a parameter the method does not declare: InvalidParameter naming it; the connection goes on")
    func unknownParameter() async throws {
        try await withTestServer { server in
            let socket = try RawSocket(connectingTo: server.path)
            try await socket.send(message: callMessage("org.example.test.Echo", #"{"text":"a","txet":"b"}"#))
            #expect(
                try await socket.readReply()
                    == ["error": "org.varlink.service.InvalidParameter", "parameters": ["parameter": "txet"]]
            )
            // The first unknown name in sorted order, so the answer is the same whatever the key order.
            try await socket.send(message: callMessage("org.example.test.Echo", #"{"zz":1,"text":"a","aa":2}"#))
            #expect(
                try await socket.readReply() == [
                    "error": "org.varlink.service.InvalidParameter", "parameters": ["parameter": "aa"],
                ]
            )
            // org.varlink.service is strict too, and a method without parameters takes none.
            try await socket.send(message: callMessage("org.varlink.service.GetInfo", #"{"verbose":true}"#))
            #expect(
                try await socket.readReply() == [
                    "error": "org.varlink.service.InvalidParameter", "parameters": ["parameter": "verbose"],
                ]
            )
            // Declared optional parameters may be given, as null too.
            try await socket.send(
                message: callMessage("org.example.test.Prepared", #"{"text":"t","mode":"plain","continues":null}"#)
            )
            #expect(try await socket.readReply() == ["parameters": ["text": "t"]])
            try await socket.send(message: callMessage("org.example.test.Echo", #"{"text":"still here"}"#))
            #expect(try await socket.readReply() == ["parameters": ["text": "still here"]])
        }
    }

    @Test("parameters that are not an object: InvalidParameter naming parameters")
    func parametersNotAnObject() async throws {
        try await withTestServer { server in
            let socket = try RawSocket(connectingTo: server.path)
            for parameters in ["[1]", #""text""#, "7"] {
                try await socket.send(message: callMessage("org.example.test.Echo", parameters))
                #expect(
                    try await socket.readReply()
                        == [
                            "error": "org.varlink.service.InvalidParameter", "parameters": ["parameter": "parameters"],
                        ],
                    "\(parameters)"
                )
            }
            try await socket.send(message: #"{"method":"org.varlink.service.GetInfo","parameters":null}"#)
            #expect(try await socket.readReply()?["parameters"]?["vendor"] == "Example", "null is no parameters")
        }
    }

    @Test("oneway with more: an error reply despite oneway, the method does not run, the connection goes on")
    func onewayWithMore() async throws {
        try await withTestServer { server in
            let socket = try RawSocket(connectingTo: server.path)
            try await socket.send(message: callMessage("org.example.test.Wait", more: true, oneway: true))
            #expect(
                try await socket.readReply()
                    == ["error": "org.varlink.service.InvalidParameter", "parameters": ["parameter": "oneway"]]
            )
            #expect(!server.recorder.contains("Wait entered"), "the method did not run")
            try await socket.send(message: callMessage("org.example.test.Echo", #"{"text":"next"}"#))
            #expect(try await socket.readReply() == ["parameters": ["text": "next"]])
        }
    }

    // MARK: oneway, pipelining, more

    @Test("a oneway call gets no reply, not even an error: the next call's reply comes first")
    func oneway() async throws {
        try await withTestServer { server in
            let socket = try RawSocket(connectingTo: server.path)
            try await socket.send(message: callMessage("org.example.test.Echo", #"{"text":"silent"}"#, oneway: true))
            try await socket.send(message: callMessage("org.example.test.Fail", #"{"reason":"silent"}"#, oneway: true))
            try await socket.send(message: callMessage("org.example.test.Nothing", oneway: true))
            try await socket.send(message: callMessage("org.example.test.Echo", #"{"text":"loud"}"#))
            #expect(try await socket.readReply() == ["parameters": ["text": "loud"]])

            try await VarlinkClientConnection.withConnection(to: server.path) { connection in
                try await connection.send("org.example.test.Echo", ["text": "silent"])
                #expect(
                    try await connection.call("org.example.test.Echo", ["text": "loud"], as: Text.self).text == "loud"
                )
            }
        }
    }

    @Test("calls pipelined in one write are answered in order, errors included")
    func pipelined() async throws {
        try await withTestServer { server in
            let socket = try RawSocket(connectingTo: server.path)
            var calls: [String] = []
            var expected: [JSON] = []
            for index in 0..<40 {
                switch index % 4 {
                case 0:
                    calls.append(callMessage("org.example.test.Echo", #"{"text":"\#(index)"}"#))
                    expected.append(["parameters": ["text": .string("\(index)")]])
                case 1:
                    calls.append(callMessage("org.example.test.Fail", #"{"reason":"\#(index)"}"#))
                    expected.append(
                        [
                            "error": "org.example.test.Failed",
                            "parameters": ["reason": .string("\(index)"), "code": "42"],
                        ]
                    )
                case 2:
                    calls.append(callMessage("org.example.test.Count", #"{"count":2}"#, more: true))
                    expected.append(["parameters": ["index": 0, "text": "item 0"], "continues": true])
                    expected.append(["parameters": ["index": 1, "text": "item 1"]])
                default:
                    calls.append(callMessage("org.example.test.Echo", #"{"text":"oneway \#(index)"}"#, oneway: true))
                }
            }
            try await socket.send(messages: calls)
            var replies: [JSON] = []
            for _ in expected { replies.append(try await socket.readReply() ?? .null) }
            #expect(replies == expected)
        }
    }

    @Test("a more call streams its replies, continues: true on all but the last", arguments: [1, 2, 7])
    func more(count: Int) async throws {
        try await withTestServer { server in
            let socket = try RawSocket(connectingTo: server.path)
            try await socket.send(message: callMessage("org.example.test.Count", #"{"count":\#(count)}"#, more: true))
            for index in 0..<count {
                let reply = try #require(try await socket.readReply())
                #expect(reply["parameters"] == ["index": .int(Int64(index)), "text": .string("item \(index)")])
                let continues: JSON? = index < count - 1 ? true : nil
                #expect(reply["continues"] == continues, "reply \(index)")
            }

            // The client sees the same stream, and the connection is usable after it.
            try await VarlinkClientConnection.withConnection(to: server.path) { connection in
                var continues: [Bool] = []
                try await connection.callMore("org.example.test.Count", ["count": count]) { reply in
                    continues.append(reply.continues)
                    return true
                }
                #expect(continues == Array(repeating: true, count: count - 1) + [false])
                #expect(
                    try await connection.call("org.example.test.Echo", ["text": "next"], as: Text.self).text == "next"
                )
            }
        }
    }

    @Test("a reply with continues: true to a call without more is sent without continues")
    func continuesOnlyForMore() async throws {
        try await withTestServer { server in
            let socket = try RawSocket(connectingTo: server.path)
            try await socket.send(
                message: callMessage("org.example.test.Prepared", #"{"text":"a","mode":"plain","continues":true}"#)
            )
            #expect(try await socket.readReply() == ["parameters": ["text": "a"]])
            #expect(try await socket.readReply() == ["parameters": ["text": "end"]])
        }
    }

    @Test("the stream handler is cancelled when the client disconnects")
    func streamCancelledOnDisconnect() async throws {
        try await withTestServer { server in
            let socket = try RawSocket(connectingTo: server.path)
            try await socket.send(message: callMessage("org.example.test.Wait", more: true))
            #expect(await server.recorder.waitFor("Wait entered"))
            #expect(!server.recorder.contains("Wait cancelled"))
            socket.close()
            #expect(await server.recorder.waitFor("Wait cancelled"))
        }
    }

    // MARK: Misbehaving clients

    @Test(
        "a message that is not a call closes only its connection",
        arguments: [
            Array("{not json".utf8), [], Array("[1,2]".utf8), Array("{}".utf8), Array(#"{"method":5}"#.utf8),
            Array(#"{"parameters":{}}"#.utf8), [0xFF, 0xFE, 0x7B, 0x7D],
        ]
    )
    func invalidMessage(message: [UInt8]) async throws {
        try await withTestServer { server in
            try await VarlinkClientConnection.withConnection(to: server.path) { other in
                let socket = try RawSocket(connectingTo: server.path)
                try await socket.send(message + [0])
                #expect(try await socket.readMessagesUntilClosed() == [])
                #expect(try await other.call("org.example.test.Echo", ["text": "still"], as: Text.self).text == "still")
            }
        }
    }

    @Test("an oversized message closes only its connection, with or without its NUL")
    func oversizedMessage() async throws {
        try await withTestServer(maximumMessageSize: 1024) { server in
            try await VarlinkClientConnection.withConnection(to: server.path) { other in
                let unterminated = try RawSocket(connectingTo: server.path)
                try await unterminated.send(Array(repeating: UInt8(ascii: " "), count: 4096))
                #expect(try await unterminated.readMessagesUntilClosed() == [])

                let padded = String(repeating: " ", count: 2000)
                let terminated = try RawSocket(connectingTo: server.path)
                try await terminated.send(message: callMessage("org.example.test.Echo", #"{"text":"\#(padded)"}"#))
                #expect(try await terminated.readMessagesUntilClosed() == [])

                #expect(try await other.call("org.example.test.Echo", ["text": "still"], as: Text.self).text == "still")
            }
        }
    }

    @Test("a call queued behind the ones in progress beyond maximumPipelinedCalls closes the connection")
    func tooManyPipelinedCalls() async throws {
        try await withTestServer(maximumPipelinedCalls: 4) { server in
            let socket = try RawSocket(connectingTo: server.path)
            // A call that does not end, then more calls than may wait behind it.
            let echoes = (0..<20).map { callMessage("org.example.test.Echo", #"{"text":"\#($0)"}"#) }
            try await socket.send(messages: [callMessage("org.example.test.Wait", more: true)] + echoes)
            let replies = try await socket.readMessagesUntilClosed()
            #expect(replies.count < 20, "the connection was closed before every queued call was answered")

            // Up to the limit, pipelining is fine, and other connections are unaffected.
            let polite = try RawSocket(connectingTo: server.path)
            try await polite.send(messages: Array(echoes.prefix(4)))
            for index in 0..<4 {
                #expect(try await polite.readReply() == ["parameters": ["text": .string("\(index)")]])
            }
        }
    }

    @Test("a client that half-closes after its calls (as socat does) still gets every reply, then end of file")
    func halfClose() async throws {
        try await withTestServer { server in
            let socket = try RawSocket(connectingTo: server.path)
            try await socket.send(messages: [
                callMessage("org.example.test.Echo", #"{"text":"one"}"#),
                callMessage("org.varlink.service.GetInfo"),
                callMessage("org.example.test.Echo", #"{"text":"two"}"#),
            ])
            try socket.shutdownWrite()
            let replies = try await socket.readMessagesUntilClosed().map { try JSON(parsing: $0) }
            #expect(replies.count == 3)
            #expect(replies.first == ["parameters": ["text": "one"]])
            #expect(replies.last == ["parameters": ["text": "two"]])
        }
    }

    @Test("a client that half-closes after a more call still gets the whole stream")
    func halfCloseDuringStream() async throws {
        try await withTestServer { server in
            let socket = try RawSocket(connectingTo: server.path)
            try await socket.send(message: callMessage("org.example.test.Gated", more: true))
            try socket.shutdownWrite()
            #expect(try await socket.readReply() == ["parameters": ["step": 1], "continues": true])
            #expect(await server.recorder.waitFor("Gated entered"))
            server.recorder.record("open")
            #expect(try await socket.readReply() == ["parameters": ["step": 2]])
            #expect(!server.recorder.contains("Gated cancelled"))
        }
    }

    // MARK: Credentials

    @Test("the server sees the connecting process's credentials: ours")
    func peerCredentials() async throws {
        struct Credentials: Decodable, Equatable { var pid: Int32, uid: UInt32, gid: UInt32 }
        try await withTestServer { server in
            let credentials = try await VarlinkClientConnection.withConnection(to: server.path) {
                try await $0.call("org.example.test.WhoAmI", as: Credentials.self)
            }
            #expect(credentials == Credentials(pid: getpid(), uid: geteuid(), gid: getegid()))
        }
    }

    // MARK: Prepared replies

    @Test(
        "a VarlinkPreparedReply sends exactly the bytes reply(_:continues:) sends",
        arguments: [false, true]
    )
    func preparedReplies(more: Bool) async throws {
        try await withTestServer { server in
            let socket = try RawSocket(connectingTo: server.path)
            var replies: [String: [UInt8]] = [:]
            for mode in ["plain", "prepared", "encoded"] {
                try await socket.send(
                    message: callMessage(
                        "org.example.test.Prepared",
                        #"{"text":"a/b \"c\" é","mode":"\#(mode)","continues":\#(more)}"#,
                        more: more
                    )
                )
                replies[mode] = try await socket.readMessageBytes()
                if more { #expect(try await socket.readReply() == ["parameters": ["text": "end"]]) }
            }
            #expect(replies["prepared"] == replies["plain"])
            #expect(replies["encoded"] == replies["plain"])
            let reply = try JSON(parsing: String(decoding: replies["plain"] ?? [], as: UTF8.self))
            #expect(reply["parameters"] == ["text": "a/b \"c\" é"])
            let continues: JSON? = more ? true : nil
            #expect(reply["continues"] == continues)

            let prepared = try VarlinkPreparedReply(Text(text: "a/b \"c\" é"), continues: more)
            #expect(prepared.size == (replies["plain"]?.count ?? 0) + 1, "the size counts the NUL terminator")
        }
    }
}
