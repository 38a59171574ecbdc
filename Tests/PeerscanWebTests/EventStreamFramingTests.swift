import Foundation
import NIOCore
import Testing

@testable import PeerscanWeb

@Suite struct EventStreamFramingTests {
    @Test(arguments: [
        (
            "0f1e2d3c-aaaa-bbbb-cccc-000000000001:42",
            ResumePoint(epoch: "0f1e2d3c-aaaa-bbbb-cccc-000000000001", sequence: 42)
        ),
        ("e:0", ResumePoint(epoch: "e", sequence: 0)),
        ("a:b:7", ResumePoint(epoch: "a:b", sequence: 7)),
    ])
    func parsesResumePoints(text: String, expected: ResumePoint) {
        #expect(ResumePoint(parsing: text) == expected)
        #expect(ResumePoint(parsing: text)?.description == text)
    }

    @Test(arguments: ["", "42", ":42", "e:", "e:-1", "e:1.5", "e:x", "e\n:1", "e:18446744073709551616"])
    func refusesResumePoints(text: String) {
        #expect(ResumePoint(parsing: text) == nil)
    }

    @Test func lastEventIDWinsOverTheQuery() {
        #expect(ResumePoint.of(lastEventID: "a:1", sinceQuery: "b:2") == ResumePoint(epoch: "a", sequence: 1))
        #expect(ResumePoint.of(lastEventID: "junk", sinceQuery: "b:2") == ResumePoint(epoch: "b", sequence: 2))
        #expect(ResumePoint.of(lastEventID: nil, sinceQuery: nil) == nil)
    }

    /// The event's lines and its data decoded.
    private func parse(_ bytes: ByteBuffer) throws -> (lines: [String], data: [String: Any]) {
        let text = String(buffer: bytes)
        #expect(text.hasSuffix("\n\n"))
        let lines = text.dropLast(2).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let dataLine = try #require(lines.first { $0.hasPrefix("data: ") })
        let data = try #require(
            try JSONSerialization.jsonObject(with: Data(dataLine.dropFirst(6).utf8)) as? [String: Any]
        )
        return (lines, data)
    }

    @Test func aSnapshotReplyIsASnapshotEvent() throws {
        let reply = Data(#"{"epoch":"E","sequence":3,"snapshot":{"sections":[],"future":1}}"#.utf8)
        let event = try EventStreamFraming.event(forMonitorReply: reply)
        #expect(event.kind == .snapshot && event.id == ResumePoint(epoch: "E", sequence: 3))
        let (lines, data) = try parse(event.bytes)
        #expect(lines.prefix(2) == ["id: E:3", "event: snapshot"] && lines.count == 3)
        #expect(data["resync"] as? Bool == false)
        #expect((data["snapshot"] as? [String: Any])?["future"] as? Int == 1)
    }

    @Test func aSnapshotIsAResyncWhenTheDaemonSaysOrAResumeFailed() throws {
        let marked = Data(#"{"epoch":"E","sequence":3,"snapshot":{},"resync":true}"#.utf8)
        #expect(try parse(EventStreamFraming.event(forMonitorReply: marked).bytes).data["resync"] as? Bool == true)
        let plain = Data(#"{"epoch":"E","sequence":3,"snapshot":{}}"#.utf8)
        let resumed = try EventStreamFraming.event(forMonitorReply: plain, snapshotIsResync: true)
        #expect(try parse(resumed.bytes).data["resync"] as? Bool == true)
        let unmarked = Data(#"{"epoch":"E","sequence":3,"resync":false,"snapshot":{}}"#.utf8)
        let failedResume = try EventStreamFraming.event(forMonitorReply: unmarked, snapshotIsResync: true)
        #expect(try parse(failedResume.bytes).data["resync"] as? Bool == true, "the later key wins")
    }

    @Test func aChangesetReplyIsAChangesetEvent() throws {
        let reply = Data(#"{"epoch":"E","sequence":4,"changes":{"itemInserts":[{"id":"a\nb"}]}}"#.utf8)
        let event = try EventStreamFraming.event(forMonitorReply: reply)
        #expect(event.kind == .changeset)
        let (lines, data) = try parse(event.bytes)
        #expect(lines.prefix(2) == ["id: E:4", "event: changeset"] && lines.count == 3)
        #expect(data["sequence"] as? Int == 4 && data["changes"] != nil && data["snapshot"] == nil)
    }

    @Test(arguments: [
        #"[]"#, #"{"sequence":1,"changes":{}}"#, #"{"epoch":"E","changes":{}}"#, #"{"epoch":"E","sequence":1}"#, "nope",
        "{\"epoch\":\"E\",\n\"sequence\":1,\"changes\":{}}",
    ])
    func repliesThatAreNoEventsAreRefused(json: String) {
        #expect(throws: EventStreamFraming.Failure.self) {
            try EventStreamFraming.event(forMonitorReply: Data(json.utf8))
        }
    }

    @Test func theKeepaliveIsAComment() {
        #expect(String(buffer: EventStreamFraming.keepalive) == ": keepalive\n\n")
    }
}
