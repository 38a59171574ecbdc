import ArgumentParser
import DeviceRegistry
import Foundation
import PeerScanCore

/// The `--alert-*` options: what is an alert, and how long the outbox keeps it (docs/alerts.md).
struct AlertOptions: ParsableArguments {
    @Option(
        name: .customLong("alert-name-wait"),
        help: ArgumentHelp(
            "Seconds a new device's alert waits for its mDNS name before it goes with what is known.",
            discussion: """
                A device found in the neighbour table first is often named by mDNS a moment later: its `new-device` \
                alert waits for that name (a display or host name) this long, then goes with its vendor and address.
                """
        )
    )
    var nameWait: Double = 30

    @Option(
        name: .customLong("alert-flap-window"),
        help: ArgumentHelp(
            "Seconds after a device's offline or online alert in which its flips are folded into it.",
            discussion: """
                Flips within the window send nothing; when it ends, a device whose state is no longer the one \
                alerted alerts once for its state then (a device back within the window is not left alerted as \
                offline).
                """
        )
    )
    var flapWindow: Double = 300

    @Option(
        name: .customLong("alert-quiet-hours"),
        help: ArgumentHelp(
            "Hold every alert in this span of local time (HH:MM-HH:MM, may cross midnight); they go when it ends.",
            discussion: """
                Alerts decided in quiet hours go out when they end, each as it was decided (its own id and time), \
                oldest first: no digest. They are held in the outbox (the registry) with the end as their not-before \
                time: a restart in quiet hours keeps them, and their --alert-expiry counts from then.
                """,
            valueName: "span"
        )
    )
    var quietHours: String?

    @Option(
        name: .customLong("alert-expiry"),
        help: ArgumentHelp(
            "Seconds an alert is kept in the outbox undelivered before it is dropped (logged: alert dropped).",
            discussion: "An alert held by quiet hours counts from their end, not from when it was decided."
        )
    )
    var expiry: Double = 86400

    @Option(
        name: .customLong("alert-outbox-max"),
        help: "The most alerts kept undelivered, held ones included; beyond, the oldest is dropped (alert dropped)."
    )
    var outboxMax = 10_000

    func validate() throws {
        guard nameWait >= 0, flapWindow >= 0 else {
            throw ValidationError("--alert-name-wait and --alert-flap-window must not be negative.")
        }
        guard expiry >= 60 else { throw ValidationError("--alert-expiry must be at least 60 seconds.") }
        guard outboxMax >= 1 else { throw ValidationError("--alert-outbox-max must be at least 1.") }
        if let quietHours, QuietHours(quietHours) == nil {
            throw ValidationError("--alert-quiet-hours \(quietHours): expected HH:MM-HH:MM, e.g. 22:00-07:00.")
        }
    }

    /// The policy's settings.
    var policySettings: AlertPolicy.Settings {
        AlertPolicy.Settings(
            nameWait: .milliseconds(Int64(nameWait * 1000)),
            flapWindow: .milliseconds(Int64(flapWindow * 1000)),
            quietHours: quietHours.flatMap(QuietHours.init)
        )
    }

    /// The outbox's limits.
    var outboxLimits: AlertOutbox.Limits {
        AlertOutbox.Limits(expiry: .milliseconds(Int64(expiry * 1000)), maximumUndelivered: outboxMax)
    }
}
