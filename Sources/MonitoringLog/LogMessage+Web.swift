// The messages of peerscan-web, the page's HTTP server (a client of peerscand: its lines are in its own journal).
// docs/operations.md's log table lists them too.

extension LogMessage {
    /// peerscan-web bound a listener (`listener`: as given, or systemd's socket; `address`: where it listens).
    public static let webListening = LogMessage("web listening", .info, keys: ["listener", "address"])
    /// A client address already had as many connections open as allowed (16): the new one was closed.
    public static let webConnectionRefused = LogMessage("web connection refused", .notice, keys: ["client"])
    /// A call to peerscand for a request failed (peerscand not running, its socket refused, a broken reply): the
    /// request was answered 502/503.
    public static let webCallFailed = LogMessage("web call failed", .warning, keys: ["method", "error"])
    /// A tab's event stream ended because the tab went (a write failed).
    public static let webStreamClientGone = LogMessage("web stream client gone", .debug, keys: ["error"])
    /// peerscand ended a tab's event stream (it stopped, or the Monitor call failed): the page reconnects and
    /// resumes.
    public static let webStreamEnded = LogMessage("web stream ended", .info, keys: ["error"])
}
