import NIOCore
import PeerScanModel
import Varlink

/// Exponential backoff between reconnection attempts: 0.25 s, doubling up to 5 s by default.
public struct Backoff: Hashable, Sendable {
    /// The first delay.
    public var initial: Duration
    /// The longest delay.
    public var maximum: Duration
    private var current: Duration

    /// Creates a backoff.
    public init(initial: Duration = .milliseconds(250), maximum: Duration = .seconds(5)) {
        self.initial = initial
        self.maximum = maximum
        self.current = initial
    }

    /// The delay before the next attempt; each call doubles the following one, up to ``maximum``.
    public mutating func next() -> Duration {
        defer { current = min(current * 2, maximum) }
        return current
    }

    /// Starts again from ``initial`` (after a successful connection).
    public mutating func reset() { current = initial }
}

/// `peerscanctl watch`: follows peerscand's Monitor stream, reconnecting when the connection drops.
///
/// The first connection must succeed (else ``run()`` throws the ``ClientFailure``, e.g. status 69). Later, when the
/// connection drops (peerscand restarts), it says so on standard error, retries with ``Backoff``, and calls
/// `Monitor(epoch, since)` to resume; if peerscand restarted or could not resume, the snapshot it sends is compared
/// with the local one and only the difference is printed. A reply that does not fit the local snapshot makes it
/// resubscribe from a snapshot; if the next changeset does not fit either, it gives up (status 76).
public struct Watcher: Sendable {
    /// The socket path.
    public var socketPath: String
    /// How replies are printed.
    public var printer: WatchPrinter
    /// Where lines go.
    public var output: any LineWriter
    /// The backoff between reconnection attempts.
    public var backoff: Backoff

    /// Creates a watcher.
    public init(socketPath: String, printer: WatchPrinter, output: any LineWriter, backoff: Backoff = Backoff()) {
        self.socketPath = socketPath
        self.printer = printer
        self.output = output
        self.backoff = backoff
    }

    /// Watches until the task is cancelled (then it returns) or a failure that retrying cannot fix.
    ///
    /// - Throws: ``ClientFailure`` for a failure to report, with its exit status; ``OutputClosed`` when standard
    ///   output went away.
    public func run() async throws {
        var session = MonitorSession()
        var backoff = self.backoff
        var connected = false
        var outageReported = false
        var waitingReported = false
        var unfitReplies = 0
        while !Task.isCancelled {
            do {
                var resubscribing = false
                try await PeerScanConnection.withConnection(to: socketPath) { connection in
                    let parameters = session.nextCallParameters()
                    if outageReported {
                        let resume = parameters.since.map { "resuming after sequence \($0)" } ?? "subscribing"
                        try write(printer.note("reconnected to peerscand on \(socketPath); \(resume)"))
                    }
                    connected = true
                    outageReported = false
                    waitingReported = false
                    try await connection.monitor(parameters) { received in
                        backoff.reset()
                        let update = session.receive(received.reply)
                        switch update {
                        case .changed: unfitReplies = 0
                        case .outOfSync(let reason):
                            unfitReplies += 1
                            if unfitReplies > 1 {
                                throw ClientFailure(
                                    .protocolMismatch,
                                    """
                                    protocol mismatch: peerscand's changes do not fit its own snapshot, even after \
                                    resubscribing (\(reason)). Is peerscand of the same version as this peerscanctl?
                                    """
                                )
                            }
                        default: break
                        }
                        for line in printer.lines(for: update, json: received.json) { try write(line) }
                        if case .outOfSync = update {
                            session.resubscribe()
                            resubscribing = true
                            return false
                        }
                        return true
                    }
                }
                if !resubscribing {
                    // peerscand ended the stream without an error: like a lost connection.
                    try write(printer.note("peerscand ended the monitor stream; reconnecting"))
                    outageReported = true
                    try await Task.sleep(for: backoff.next())
                }
            } catch {
                if Task.isCancelled || error is CancellationError { return }
                guard connected, Self.isTransient(error) else { throw Self.failure(error, socketPath: socketPath) }
                if !outageReported {
                    try write(printer.note("lost the connection to peerscand (\(Self.describe(error))); reconnecting"))
                    outageReported = true
                } else if !waitingReported {
                    try write(printer.note("waiting for peerscand: \(Self.describe(error))"))
                    waitingReported = true
                }
                do {
                    try await Task.sleep(for: backoff.next())
                } catch {
                    return
                }
            }
        }
    }

    private func write(_ line: OutputLine) throws {
        try output.write(line)
    }

    /// Whether retrying may fix the error: the connection dropped or peerscand is not (yet) listening again.
    static func isTransient(_ error: any Error) -> Bool {
        switch error {
        case VarlinkConnectError.notListening, VarlinkConnectError.failed: true
        case VarlinkProtocolError.connectionClosed: true
        case is IOError, is ChannelError: true
        default: false
        }
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case VarlinkConnectError.notListening(let path): "nothing listening on \(path)"
        default: "\(error)"
        }
    }

    static func failure(_ error: any Error, socketPath: String) -> any Error {
        error is OutputClosed ? error : ClientFailure(error, socketPath: socketPath)
    }
}
