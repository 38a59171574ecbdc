import Foundation
import Glibc
import NIOCore
import NIOPosix

/// Why a client could not reach a Varlink server.
public enum VarlinkConnectError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Nothing listens at the path (no socket file, or a stale one).
    case notListening(path: String)
    /// The socket exists but the caller may not connect to it.
    case permissionDenied(path: String)
    /// Connecting failed for another reason.
    case failed(path: String, reason: String)

    public var description: String {
        switch self {
        case .notListening(let path): "nothing is listening on \(path)"
        case .permissionDenied(let path): "permission denied connecting to \(path)"
        case .failed(let path, let reason): "cannot connect to \(path): \(reason)"
        }
    }
}

/// A Varlink client connection to a Unix socket.
///
/// ```swift
/// try await VarlinkClientConnection.withConnection(to: "/run/peerscan/io.peerscan") { connection in
///     let info = try await connection.call("org.varlink.service.GetInfo", as: Info.self)
/// }
/// ```
/// Calls are answered in order; a `more` call owns the connection until its last reply.
public final class VarlinkClientConnection {
    private var inbound: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    private let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    /// Set when a stream was abandoned before its last reply: its remaining replies would be taken for the answers
    /// of later calls, so the connection cannot be used any more.
    private var abandonedStream = false

    private init(
        inbound: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator,
        outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    ) {
        self.inbound = inbound
        self.outbound = outbound
    }

    /// Connects, runs `body` with the connection, and closes it.
    ///
    /// - Throws: ``VarlinkConnectError`` if the server cannot be reached; whatever `body` throws.
    public static func withConnection<Result: Sendable>(
        to path: String,
        maximumMessageSize: Int = 16 << 20,
        _ body: (VarlinkClientConnection) async throws -> Result
    ) async throws -> Result {
        let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(unixDomainSocketPath: path) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            ByteToMessageHandler(VarlinkFrameDecoder(maximumMessageSize: maximumMessageSize))
                        )
                        return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw Self.connectError(error, path: path)
        }
        return try await channel.executeThenClose { inbound, outbound in
            try await body(VarlinkClientConnection(inbound: inbound.makeAsyncIterator(), outbound: outbound))
        }
    }

    /// Calls a method and returns its reply, undecoded: ``VarlinkReply/rawParameters`` are its parameters as
    /// received.
    ///
    /// - Throws: ``VarlinkError`` for an error reply, ``VarlinkProtocolError`` for a malformed reply or a closed
    ///   connection.
    public func call(_ method: String, _ parameters: some Encodable = [String: String]()) async throws -> VarlinkReply {
        try await outbound.write(VarlinkEncoding.call(method, parameters, more: false, oneway: false))
        return try await nextReply()
    }

    /// Calls a method and returns its reply's parameters.
    ///
    /// - Throws: ``VarlinkError`` for an error reply, ``VarlinkProtocolError`` for a malformed reply or a closed
    ///   connection.
    public func call<Reply: Decodable>(
        _ method: String,
        _ parameters: some Encodable = [String: String](),
        as type: Reply.Type
    ) async throws -> Reply {
        try await outbound.write(VarlinkEncoding.call(method, parameters, more: false, oneway: false))
        return try await nextReply().parameters(as: type)
    }

    /// Calls a method with `more: true` and hands each reply to `body` until the last one (`continues` false) or
    /// until `body` returns `false`. A stream left before its last reply makes the connection unusable: its later
    /// calls throw.
    public func callMore(
        _ method: String,
        _ parameters: some Encodable = [String: String](),
        _ body: (VarlinkReply) async throws -> Bool
    ) async throws {
        try await outbound.write(VarlinkEncoding.call(method, parameters, more: true, oneway: false))
        while true {
            let reply = try await nextReply()
            let wantsMore = try await body(reply)
            guard reply.continues else { return }
            guard wantsMore else {
                abandonedStream = true
                return
            }
        }
    }

    /// Sends a `oneway` call: no reply comes.
    public func send(_ method: String, _ parameters: some Encodable = [String: String]()) async throws {
        try await outbound.write(VarlinkEncoding.call(method, parameters, more: false, oneway: true))
    }

    /// The next reply; an error reply is thrown as ``VarlinkError``.
    private func nextReply() async throws -> VarlinkReply {
        if abandonedStream {
            throw VarlinkProtocolError.invalidMessage("a stream on this connection was abandoned; open a new one")
        }
        guard let frame = try await inbound.next() else { throw VarlinkProtocolError.connectionClosed }
        let reply = try VarlinkReply(message: Data(frame.readableBytesView))
        if let error = reply.varlinkError { throw error }
        return reply
    }

    private static func connectError(_ error: any Error, path: String) -> VarlinkConnectError {
        let code: Int32? =
            (error as? IOError)?.errnoCode
            ?? (error as? NIOConnectionError)?.connectionErrors.compactMap { ($0.error as? IOError)?.errnoCode }.first
        switch code {
        case ENOENT, ECONNREFUSED, ENOTDIR: return .notListening(path: path)
        case EACCES, EPERM: return .permissionDenied(path: path)
        default: return .failed(path: path, reason: "\(error)")
        }
    }
}
