import Foundation

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
/// line. The data is built from the Monitor reply's parameters as received, so fields this server does not know
/// reach the page unchanged.
public enum EventStreamFraming {
    /// The comment sent when nothing else was for a while, so that proxies and the page see the stream alive.
    public static let keepalive = Data(": keepalive\n\n".utf8)

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
    /// - Parameters:
    ///   - json: The reply's parameters.
    ///   - snapshotIsResync: Whether a snapshot is a resync even if the reply does not say so (the first reply of a
    ///     call that asked to resume: peerscand could not).
    /// - Throws: ``Failure`` if the reply is no JSON object with an epoch, a sequence and a snapshot or changes.
    public static func event(
        forMonitorReply json: Data,
        snapshotIsResync: Bool = false
    ) throws(Failure) -> (kind: Kind, id: ResumePoint, bytes: Data) {
        guard let object = try? JSONSerialization.jsonObject(with: json) as? [String: Any] else {
            throw Failure(reason: "the reply is no JSON object")
        }
        guard let epoch = object["epoch"] as? String, let sequence = (object["sequence"] as? NSNumber)?.uint64Value
        else { throw Failure(reason: "the reply has no epoch or sequence") }
        let id = ResumePoint(epoch: epoch, sequence: sequence)
        var data: [String: Any] = ["epoch": epoch, "sequence": sequence]
        let kind: Kind
        if let snapshot = object["snapshot"] {
            kind = .snapshot
            data["snapshot"] = snapshot
            data["resync"] = snapshotIsResync || (object["resync"] as? Bool) == true
        } else if let changes = object["changes"] {
            kind = .changeset
            data["changes"] = changes
        } else {
            throw Failure(reason: "the reply has neither a snapshot nor changes")
        }
        guard let encoded = try? JSONSerialization.data(withJSONObject: data, options: [.withoutEscapingSlashes])
        else { throw Failure(reason: "the event cannot be encoded") }
        return (kind, id, frame(kind: kind, id: id, data: encoded))
    }

    /// One event's bytes.
    /// - Precondition: `data` holds no newline (compact JSON).
    public static func frame(kind: Kind, id: ResumePoint, data: Data) -> Data {
        precondition(!data.contains(UInt8(ascii: "\n")), "an event's data holds a newline")
        var bytes = Data("id: \(id)\nevent: \(kind.rawValue)\ndata: ".utf8)
        bytes.append(data)
        bytes.append(contentsOf: Array("\n\n".utf8))
        return bytes
    }
}
