// A connection to the server: admitting it, reading its pipelined calls in order, and dispatching each to its
// interface.

import AsyncPrimitives
import Foundation
import Logging
import MonitoringLog
import NIOCore
import Varlink

extension VarlinkServer {
    func serve(_ accepted: Accepted, id: Int) async {
        var logger = self.logger
        logger[metadataKey: "connection"] = "\(id)"
        if let peer = accepted.peer {
            logger[metadataKey: "pid"] = "\(peer.pid)"
            logger[metadataKey: "uid"] = "\(peer.uid)"
        }
        let uid = accepted.peer?.uid
        let privileged = accepted.peer?.isRootOrMember(of: limits.privilegedGroup) ?? false
        if let reason = ledger.admit(uid: uid, privileged: privileged) {
            let limit = reason == .connections ? limits.maximumConnections : limits.maximumConnectionsPerUser
            limitLog.log(reason, logger: logger, limit: limit)
            try? await accepted.channel.channel.close()
            return
        }
        defer { ledger.release(uid: uid) }
        logger.log(.clientConnected)
        let queued = QueuedBytes()
        let maximumQueuedBytes = limits.maximumQueuedBytes
        do {
            try await accepted.channel.executeThenClose { inbound, outbound in
                let (calls, callsContinuation) = AsyncStream<ByteBuffer>.makeStream(
                    bufferingPolicy: .bufferingOldest(maximumPipelinedCalls)
                )
                // A stream ends when the connection closes; a client that only shuts down its writing side (socat
                // does) still gets every reply.
                let closed = OneShotSignal()
                accepted.channel.channel.closeFuture.whenComplete { _ in closed.fire() }
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        defer { callsContinuation.finish() }
                        do {
                            for try await frame in inbound {
                                guard queued.add(frame.readableBytes) <= maximumQueuedBytes else {
                                    throw VarlinkServerError.tooManyQueuedBytes(limit: maximumQueuedBytes)
                                }
                                if case .dropped = callsContinuation.yield(frame) {
                                    throw VarlinkServerError.tooManyPipelinedCalls(limit: maximumPipelinedCalls)
                                }
                            }
                        } catch {
                            closed.fire()
                            throw error
                        }
                    }
                    for await frame in calls {
                        defer { queued.subtract(frame.readableBytes) }
                        let call = try VarlinkCall(message: Data(frame.readableBytesView))
                        let context = VarlinkCallContext(
                            call: call,
                            peer: accepted.peer,
                            connectionID: id,
                            logger: logger,
                            writer: outbound,
                            ledger: ledger
                        )
                        try await dispatch(context, closed: closed)
                    }
                    try await group.waitForAll()
                }
            }
            logger.log(.clientDisconnected)
        } catch is CancellationError {
            logger.log(.clientDisconnectedAtShutdown, ["reason": "shutdown"])
        } catch VarlinkServerError.tooManyQueuedBytes(let limit) {
            limitLog.log(.queuedBytes, logger: logger, limit: limit)
        } catch VarlinkServerError.tooManyPipelinedCalls(let limit) {
            limitLog.log(.pipelinedCalls, logger: logger, limit: limit)
        } catch VarlinkServerError.incompleteMessage(let seconds) {
            limitLog.log(.incompleteMessage, logger: logger, limit: seconds)
        } catch let error as ChannelError where error == .ioOnClosedChannel || error == .alreadyClosed {
            // An ordinary disconnect while replies were still being written (calls queued, a Monitor stream).
            logger.log(.clientDisconnected, ["reason": "closed with replies pending"])
        } catch {
            logger.log(.clientError, ["error": "\(error)"])
        }
    }

    private func dispatch(_ context: VarlinkCallContext, closed: OneShotSignal) async throws {
        let call = context.call
        if call.oneway && call.more {
            // Contradictory: a oneway call gets no reply, a more call a stream of them. Refused with a reply despite
            // `oneway` (the caller may be waiting for its stream), and the method does not run.
            context.logger.log(.callRefused, ["method": "\(call.method)", "reason": "oneway with more"])
            try await context.replyEvenIfOneway(error: .invalidParameter("oneway"))
            return
        }
        do {
            if call.upgrade { throw VarlinkError.methodNotImplemented(call.method) }
            if let declared = methodParameters[call.interface]?.parameterNames(of: call.methodName),
                let unknown = try call.parameterNames().first(where: { !declared.contains($0) })
            {
                throw VarlinkError.invalidParameter(unknown)
            }
            if call.interface == "org.varlink.service" {
                try await serviceInterface(context)
            } else if let interface = interfaces[call.interface] {
                if call.more {
                    // A stream ends when the handler returns, or when the client goes away.
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask { try await interface.handle(call, context: context) }
                        group.addTask { await closed.wait() }
                        try await group.next()
                        group.cancelAll()
                    }
                } else {
                    try await interface.handle(call, context: context)
                }
            } else {
                throw VarlinkError.interfaceNotFound(call.interface)
            }
        } catch let error as VarlinkError {
            context.logger.log(.callFailed, ["method": "\(call.method)", "error": "\(error)"])
            try await context.reply(error: error)
        }
    }
}
