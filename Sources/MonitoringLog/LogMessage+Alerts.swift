// peerscand's messages about alerts: the outbox (docs/alerts.md). docs/operations.md's log table lists them too.

extension LogMessage {
    /// An alert was decided and written to the outbox (`destinations`: the names it will be offered to, comma-separated;
    /// empty while no sender ever followed; `not.before`, only for one decided in quiet hours: when they end and it is
    /// offered, RFC 3339 UTC).
    public static let alertQueued = LogMessage(
        "alert queued",
        .info,
        keys: ["id", "event", "device", "destinations", "not.before"]
    )
    /// The sender acknowledged an alert as `rejected` (the receiver refused it for good; the sender logged `alert
    /// failed`): it is removed for that destination; `answer` is the receiver's.
    public static let alertRejected = LogMessage(
        "alert rejected",
        .warning,
        keys: ["id", "destination", "answer"]
    )
    /// An alert was removed for a destination without being sent: `reason=expired` (older than `--alert-expiry`) or
    /// `reason=outbox-full` (more than `--alert-outbox-max` undelivered: the oldest goes).
    public static let alertDropped = LogMessage(
        "alert dropped",
        .warning,
        keys: ["id", "destination", "reason"]
    )
}
