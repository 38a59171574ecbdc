// Why a server could not serve, or closed a connection.

/// Why a ``VarlinkServer`` could not serve.
public enum VarlinkServerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Another server already answers on the path.
    case alreadyServed(path: String)
    /// The path exists and is not a socket.
    case notASocket(path: String)
    /// The socket could not be created there.
    case cannotListen(path: String, reason: String)
    /// A client queued more calls than allowed while one was in progress.
    case tooManyPipelinedCalls(limit: Int)
    /// A client queued more bytes of calls than allowed while one was in progress.
    case tooManyQueuedBytes(limit: Int)
    /// A client left a message unfinished for longer than allowed.
    case incompleteMessage(timeoutSeconds: Int)

    public var description: String {
        switch self {
        case .alreadyServed(let path): "another instance is already serving \(path)"
        case .notASocket(let path): "\(path) exists and is not a socket; not replacing it"
        case .cannotListen(let path, let reason): "cannot listen on \(path): \(reason)"
        case .tooManyPipelinedCalls(let limit): "more than \(limit) pipelined calls"
        case .tooManyQueuedBytes(let limit): "more than \(limit) bytes of pipelined calls"
        case .incompleteMessage(let seconds): "a message left unfinished for \(seconds) s"
        }
    }
}
