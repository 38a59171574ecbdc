import Foundation
import NIOCore

/// Where an event stream resumes: the `id` of the last event the client has, `E:N` (epoch, sequence).
///
/// The epoch is peerscand's (a UUID today, but any text without a newline): the sequence follows the last colon.
public struct ResumePoint: Hashable, Sendable, CustomStringConvertible {
    /// peerscand's epoch.
    public var epoch: String
    /// The sequence the client is at.
    public var sequence: UInt64

    /// A resume point.
    public init(epoch: String, sequence: UInt64) {
        self.epoch = epoch
        self.sequence = sequence
    }

    /// Parses `E:N`; `nil` for anything else (the stream then starts from a snapshot).
    public init?(parsing text: String) {
        guard let colon = text.lastIndex(of: ":") else { return nil }
        let epoch = String(text[..<colon])
        guard !epoch.isEmpty, !epoch.contains(where: \.isNewline),
            let sequence = UInt64(text[text.index(after: colon)...])
        else { return nil }
        self.init(epoch: epoch, sequence: sequence)
    }

    /// The resume point of a request: `Last-Event-ID` wins over the query's `since`; `nil` if neither parses.
    public static func of(lastEventID: String?, sinceQuery: String?) -> ResumePoint? {
        if let lastEventID, let point = ResumePoint(parsing: lastEventID) { return point }
        if let sinceQuery, let point = ResumePoint(parsing: sinceQuery) { return point }
        return nil
    }

    public var description: String { "\(epoch):\(sequence)" }
}

/// Server-Sent Events as bytes: one event per Monitor reply, and the keepalive comment.
///
/// Each event is `id: E:N`, `event: snapshot|changeset`, one `data:` line (compact JSON has no newline) and an empty
/// line. The data is the Monitor reply's parameters as received (a snapshot's `resync` added if it lacks one), so
/// fields this server does not know reach the page unchanged.
public enum EventStreamFraming {
    /// The comment sent when nothing else was for a while, so that proxies and the page see the stream alive.
    public static let keepalive = ByteBuffer(string: ": keepalive\n\n")

    /// The kind of event.
    public enum Kind: String, Sendable {
        /// A whole snapshot: `{"epoch","sequence","snapshot","resync"}`.
        case snapshot
        /// A changeset taking sequence N-1 to N: `{"epoch","sequence","changes"}`.
        case changeset
    }

    /// Why a reply cannot be an event.
    public struct Failure: Error, Hashable, Sendable {
        /// What is wrong.
        public var reason: String
    }

    /// The event for one Monitor reply (its parameters, as received).
    ///
    /// The reply's bytes are the event's data as they came (a snapshot of 10,000 devices is ~5 MB: it is scanned for
    /// its `epoch`, `sequence`, `resync` and which of `snapshot` or `changes` it has, never rebuilt, and copied once,
    /// into the event's buffer, the one written to the client); a snapshot's `resync` is added at the object's end
    /// when the reply lacks it or the call's resume failed (a later duplicate key wins in JSON.parse).
    /// - Parameters:
    ///   - json: The reply's parameters, compact JSON.
    ///   - snapshotIsResync: Whether a snapshot is a resync even if the reply does not say so (the first reply of a
    ///     call that asked to resume: peerscand could not).
    /// - Throws: ``Failure`` if the reply is no JSON object with an epoch, a sequence and a snapshot or changes, or
    ///   holds a line break (no compact JSON).
    public static func event(
        forMonitorReply json: Data,
        snapshotIsResync: Bool = false
    ) throws(Failure) -> (kind: Kind, id: ResumePoint, bytes: ByteBuffer) {
        guard let head = try? JSONDecoder().decode(ReplyHead.self, from: json) else {
            throw Failure(reason: "the reply is no JSON object with an epoch and a sequence")
        }
        guard !json.contains(UInt8(ascii: "\n")), !json.contains(UInt8(ascii: "\r")) else {
            throw Failure(reason: "the reply holds a line break")
        }
        guard let end = json.lastIndex(where: { !Self.isJSONWhitespace($0) }), json[end] == UInt8(ascii: "}") else {
            throw Failure(reason: "the reply is no JSON object")
        }
        let id = ResumePoint(epoch: head.epoch, sequence: head.sequence)
        let kind: Kind
        var added = ""
        if head.snapshot != nil {
            kind = .snapshot
            if snapshotIsResync && head.resync != true {
                added = #","resync":true"#
            } else if head.resync == nil {
                added = #","resync":false"#
            }
        } else if head.changes != nil {
            kind = .changeset
        } else {
            throw Failure(reason: "the reply has neither a snapshot nor changes")
        }
        return (kind, id, frame(kind: kind, id: id, data: json[..<end], closedBy: added + "}"))
    }

    /// What the framing reads of a reply; the snapshot's and the changes' content are skipped, not decoded.
    private struct ReplyHead: Decodable {
        var epoch: String
        var sequence: UInt64
        var resync: Bool?
        var snapshot: Present?
        var changes: Present?
    }

    /// A member that is there (its content is not read).
    private struct Present: Decodable {
        init(from decoder: any Decoder) throws {}
    }

    private static func isJSONWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// One event's bytes, in one buffer allocated at its final size: `data` then `closing` are its data line, which
    /// must hold no line break (compact JSON: ``event(forMonitorReply:snapshotIsResync:)`` refuses a reply that does).
    static func frame(kind: Kind, id: ResumePoint, data: Data, closedBy closing: String) -> ByteBuffer {
        let head = "id: \(id)\nevent: \(kind.rawValue)\ndata: "
        let tail = closing + "\n\n"
        var bytes = ByteBuffer()
        bytes.reserveCapacity(head.utf8.count + data.count + tail.utf8.count)
        bytes.writeString(head)
        bytes.writeBytes(data)
        bytes.writeString(tail)
        return bytes
    }
}
