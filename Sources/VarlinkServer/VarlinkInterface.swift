// What a server serves: a Varlink interface, the context a method handler gets, and replies prepared once for many
// clients.

import Foundation
import Logging
import NIOCore
import Varlink

/// One Varlink interface a ``VarlinkServer`` serves.
public protocol VarlinkInterface: Sendable {
    /// The interface name, e.g. `io.peerscan`.
    var name: String { get }
    /// The interface definition (the `.varlink` text), served by `org.varlink.service.GetInterfaceDescription`.
    var definition: String { get }
    /// Answers one call of this interface, through `context.reply`. Throw a ``VarlinkError`` to answer with an
    /// error; any other error closes the connection. A `more` call ends when this returns, or is cancelled when the
    /// client disconnects.
    func handle(_ call: VarlinkCall, context: VarlinkCallContext) async throws
}

/// What a method handler knows about its call, and how it replies.
public struct VarlinkCallContext: Sendable {
    /// The call.
    public let call: VarlinkCall
    /// The caller's credentials, from the kernel.
    public let peer: PeerCredentials?
    /// A number identifying the connection in logs.
    public let connectionID: Int
    /// A logger with the connection's metadata.
    public let logger: Logger
    let writer: NIOAsyncChannelOutboundWriter<ByteBuffer>
    let ledger: ConnectionLedger

    /// The connections the server holds open now, this one included.
    public var openConnections: Int { ledger.openConnections }

    /// Sends a reply; waits while the client does not read (backpressure). Nothing is sent for a `oneway` call.
    ///
    /// - Parameters:
    ///   - parameters: The reply's parameters.
    ///   - continues: More replies follow; only honoured for `more` calls.
    public func reply(_ parameters: some Encodable, continues: Bool = false) async throws {
        guard !call.oneway else { return }
        try await writer.write(VarlinkEncoding.reply(parameters, continues: continues && call.more))
    }

    /// Sends a reply prepared once for many clients (the bytes are shared, not copied). A prepared reply that
    /// continues is only for `more` calls.
    public func reply(_ prepared: VarlinkPreparedReply) async throws {
        guard !call.oneway else { return }
        try await writer.write(prepared.frame)
    }

    /// Sends an error reply (nothing for a `oneway` call).
    public func reply(error: VarlinkError) async throws {
        guard !call.oneway else { return }
        try await replyEvenIfOneway(error: error)
    }

    /// Sends an error reply, also to a `oneway` call: for a call that cannot be taken as either.
    func replyEvenIfOneway(error: VarlinkError) async throws {
        try await writer.write(VarlinkEncoding.error(error))
    }
}

/// A reply encoded once, to be sent to many clients: the same bytes go to each of them.
public struct VarlinkPreparedReply: Sendable {
    package let frame: ByteBuffer

    /// Prepares a reply from its parameters, already encoded as a JSON object.
    /// - Parameters:
    ///   - encodedParameters: The `parameters` object, as JSON.
    ///   - continues: More replies follow (only for `more` calls).
    public init(encodedParameters: Data, continues: Bool) {
        frame = VarlinkEncoding.reply(encodedParameters: encodedParameters, continues: continues)
    }

    /// Prepares a reply whose parameters `writeParameters` writes, as a JSON object, into the reply's own buffer (a
    /// large reply is then held once, not once as the parameters and again as the frame).
    /// - Parameters:
    ///   - continues: More replies follow (only for `more` calls).
    ///   - writeParameters: Appends the `parameters` object's JSON to the buffer it is given.
    public init<Failure: Error>(
        continues: Bool,
        writingParameters writeParameters: (inout ByteBuffer) throws(Failure) -> Void
    ) throws(Failure) {
        frame = try VarlinkEncoding.reply(continues: continues, writingParameters: writeParameters)
    }

    /// Prepares a reply by encoding its parameters.
    public init(_ parameters: some Encodable, continues: Bool) throws {
        frame = try VarlinkEncoding.reply(parameters, continues: continues)
    }

    /// The size of the reply on the wire, in bytes.
    public var size: Int { frame.readableBytes }
}
