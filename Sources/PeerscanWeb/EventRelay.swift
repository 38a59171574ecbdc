import AsyncAlgorithms
import Foundation
import Logging
import MonitoringLog
import NIOCore
import PeerScanClient
import PeerScanModel

/// One client's event stream: a Monitor call of its own to peerscand, each reply as a Server-Sent Event, and a
/// keepalive comment when nothing was sent for a while.
///
/// The Monitor replies and the keepalives meet in an `AsyncChannel`, whose `send` waits for the write to the client:
/// a slow client slows its Monitor call, and peerscand (which queues a bounded number of changesets per client)
/// resyncs it with a snapshot instead of this process buffering without bound. The stream ends when the client goes
/// (a write fails) or when peerscand ends the call or goes away; the page then reconnects with `Last-Event-ID`.
struct EventRelay: Sendable {
    /// peerscand's socket.
    var socketPath: String
    /// How long the stream may stay silent before a keepalive comment.
    var keepaliveInterval: Duration
    /// Where failures are logged.
    var logger: Logger

    /// Runs the stream, handing each chunk to `write`, until the client or peerscand goes.
    ///
    /// - Parameters:
    ///   - resume: Where the client is, if it says (`Last-Event-ID`, `?since=`).
    ///   - write: Writes a chunk to the client; throws once the client is gone.
    func run(from resume: ResumePoint?, write: (ByteBuffer) async throws -> Void) async {
        let chunks = AsyncChannel<ByteBuffer>()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await relayMonitor(from: resume, to: chunks)
                chunks.finish()
            }
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: keepaliveInterval)
                    if Task.isCancelled { break }
                    await chunks.send(EventStreamFraming.keepalive)
                }
            }
            do {
                for await chunk in chunks { try await write(chunk) }
            } catch {
                logger.log(.webStreamClientGone, ["error": "\(error)"])
            }
            group.cancelAll()
            chunks.finish()
        }
    }

    /// Calls Monitor and sends each reply's event to `chunks` until the call ends or the task is cancelled.
    private func relayMonitor(from resume: ResumePoint?, to chunks: AsyncChannel<ByteBuffer>) async {
        let parameters = PeerScanWire.MonitorParameters(epoch: resume?.epoch, since: resume?.sequence)
        do {
            try await PeerScanConnection.withConnection(to: socketPath) { connection in
                var isFirst = true
                try await connection.monitorPassingJSON(parameters) { json in
                    let event = try EventStreamFraming.event(
                        forMonitorReply: json,
                        snapshotIsResync: isFirst && resume != nil
                    )
                    isFirst = false
                    await chunks.send(event.bytes)
                    return !Task.isCancelled
                }
            }
        } catch {
            if !Task.isCancelled { logger.log(.webStreamEnded, ["error": "\(error)"]) }
        }
    }
}

extension EventStreamFraming.Failure: CustomStringConvertible {
    public var description: String { "Monitor reply: \(reason)" }
}
