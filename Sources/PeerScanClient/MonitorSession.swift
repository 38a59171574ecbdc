import Diffable
import PeerScanModel

/// The client's side of `io.peerscan.Monitor` across connections: the local copy of the snapshot, kept up to date by
/// applying each changeset, and where to resume after a reconnection.
///
/// Feed it every reply with ``receive(_:)``; it tells what happened. `Snapshot.applying(_:)` checks every id and
/// position of a changeset, and the session checks epochs and sequences, so a reply that does not fit the local
/// snapshot is reported as ``Update/outOfSync(_:)`` instead of corrupting it: the caller then resubscribes
/// (``resubscribe()``, then a new Monitor call with ``nextCallParameters``) and gets a snapshot.
public struct MonitorSession: Sendable {
    /// Why a snapshot replaced the local one.
    public enum ResyncReason: Hashable, Sendable {
        /// peerscand restarted: the epoch changed.
        case daemonRestarted
        /// peerscand could not resume after the sequence the client gave (it no longer holds those changesets).
        case resumeUnavailable(since: UInt64)
        /// The client fell behind and peerscand dropped the changesets queued for it.
        case fellBehind
        /// The client resubscribed after a reply that did not fit.
        case resubscribed
    }

    /// What a reply did.
    public enum Update: Sendable {
        /// The first snapshot.
        case initial(ScanSnapshot)
        /// A changeset, applied: `old` with `changes` applied is `new`.
        case changed(old: ScanSnapshot, changes: ScanChangeset, new: ScanSnapshot)
        /// A snapshot replaced the local one.
        case resynced(ResyncReason, old: ScanSnapshot, new: ScanSnapshot)
        /// The reply does not fit the local snapshot (the reason says how); the local snapshot is unchanged.
        case outOfSync(String)
    }

    /// The local snapshot, once a snapshot was received.
    public private(set) var snapshot: ScanSnapshot?
    /// The epoch of the daemon the local snapshot comes from.
    public private(set) var epoch: String?
    /// The sequence of the local snapshot.
    public private(set) var sequence: UInt64?

    /// How the current Monitor call was made.
    private enum CallKind {
        case fresh, resuming, resubscribing
    }
    private var call = CallKind.fresh
    private var resubscribing = false

    /// Creates a session with no snapshot yet.
    public init() {}

    /// The parameters of the next Monitor call: resume after the local sequence, unless there is nothing to resume
    /// or the session resubscribes. Calling it starts a new call: the next reply is its first.
    public mutating func nextCallParameters() -> PeerScanWire.MonitorParameters {
        if resubscribing || snapshot == nil {
            call = resubscribing ? .resubscribing : .fresh
            resubscribing = false
            return PeerScanWire.MonitorParameters()
        }
        call = .resuming
        return PeerScanWire.MonitorParameters(epoch: epoch, since: sequence)
    }

    /// Makes the next Monitor call start from a snapshot (after ``Update/outOfSync(_:)``).
    public mutating func resubscribe() {
        resubscribing = true
    }

    /// Takes one Monitor reply into account.
    ///
    /// - Parameter reply: The reply.
    /// - Returns: What it did.
    /// - Complexity: That of `Snapshot.applying(_:)` for a changeset: O(n + c log c).
    public mutating func receive(_ reply: PeerScanWire.MonitorReply) -> Update {
        let kind = call
        call = .fresh  // later replies of the call are not its first
        if let received = reply.snapshot {
            defer {
                snapshot = received
                epoch = reply.epoch
                sequence = reply.sequence
            }
            guard let local = snapshot else { return .initial(received) }
            let reason: ResyncReason
            if reply.epoch != epoch {
                reason = .daemonRestarted
            } else if kind == .resuming, let sequence {
                reason = .resumeUnavailable(since: sequence)
            } else if reply.resync == true {
                reason = .fellBehind
            } else {
                reason = .resubscribed
            }
            return .resynced(reason, old: local, new: received)
        }
        guard let changes = reply.changes else {
            return .outOfSync("reply \(reply.sequence) has neither a snapshot nor changes")
        }
        guard let local = snapshot, let epoch, let sequence else {
            return .outOfSync("changeset \(reply.sequence) came before any snapshot")
        }
        guard reply.epoch == epoch else {
            return .outOfSync("changeset \(reply.sequence) is of epoch \(reply.epoch), the snapshot of \(epoch)")
        }
        guard reply.sequence == sequence + 1 else {
            return .outOfSync("changeset \(reply.sequence) follows sequence \(sequence)")
        }
        do {
            let new = try local.applying(changes)
            self.snapshot = new
            self.sequence = reply.sequence
            return .changed(old: local, changes: changes, new: new)
        } catch {
            return .outOfSync("changeset \(reply.sequence) does not apply to the snapshot at \(sequence): \(error)")
        }
    }
}
