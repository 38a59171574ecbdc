import PeerScanModel

/// One destination's digest window: the first alert collected opens it for ``length``; the alerts collected until it
/// is closed go together, in the order offered. A value without I/O: the sender sleeps until ``end`` on its clock,
/// then closes it and delivers the digests.
public struct DigestWindow<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    /// How long a window collects.
    public let length: Duration
    /// The alerts collected, oldest first.
    public private(set) var collected: [PeerScanWire.Alert] = []
    /// When the open window ends; `nil` while none is open.
    public private(set) var end: Instant?

    /// A window that collects for `length` from its first alert.
    public init(length: Duration) { self.length = length }

    /// Collects an alert.
    ///
    /// - Returns: The end of the window this alert opened (none was open: `now + length`), or `nil` when it joined
    ///   the open one (whose end it does not move).
    /// - Complexity: O(1) amortized.
    public mutating func collect(_ alert: PeerScanWire.Alert, at now: Instant) -> Instant? {
        collected.append(alert)
        guard end == nil else { return nil }
        let opened = now.advanced(by: length)
        end = opened
        return opened
    }

    /// Closes the window: what it collected, as digests of at most ``AlertDigest/maximumAlerts`` alerts, oldest
    /// first. The next alert collected opens a new window.
    ///
    /// - Complexity: O(n) in the number of alerts collected.
    public mutating func close() -> [AlertDigest] {
        defer {
            collected = []
            end = nil
        }
        return AlertDigest.digests(of: collected)
    }
}
