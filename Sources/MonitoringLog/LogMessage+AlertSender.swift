// The messages of peerscan-alerts, the alerts' sender (a client of peerscand: its lines are in its own journal).
// docs/operations.md's log table lists them too. A destination is always named by its secret-free name.

extension LogMessage {
    /// A receiver accepted an alert (`status`: its HTTP status; `ms`: the request's time); `digest`: the key of the
    /// digest it went in, one line per alert of it.
    public static let alertSent = LogMessage(
        "alert sent",
        .info,
        keys: ["id", "destination", "status", "ms", "digest"]
    )
    /// A delivery failed: `error` says how (no answer, or the receiver's status); `retry.in` is the wait before the
    /// next try, absent when the receiver refused the alert for good (acknowledged as rejected); `digest`: the key of
    /// the digest refused, one line per alert of it.
    public static let alertSendFailed = LogMessage(
        "alert failed",
        .warning,
        keys: ["id", "destination", "error", "retry.in", "digest"]
    )
    /// A digest's delivery failed for now (no answer, or a transient status): `alerts` in it, tried again after
    /// `retry.in` with the same key. One line per try, not per alert; each alert's fate is its own line then.
    public static let alertDigestFailed = LogMessage(
        "alert digest failed",
        .warning,
        keys: ["digest", "destination", "alerts", "error", "retry.in"]
    )
    /// A call to peerscand failed or ended (`method`: FollowAlerts or AckAlert): tried again after `retry.in`.
    public static let alertsCallFailed = LogMessage(
        "alerts call failed",
        .warning,
        keys: ["method", "error", "retry.in"]
    )
}
