import MonitoringLog

/// When what the mDNS source stopped reporting goes: the resync after the source's daemon restarts, and the
/// withdrawal of an interface whose link went down.
///
/// A pure value: it drives the ``MDNSHostTable``'s resync operations (passed in), asks for its deadlines and writes its
/// log lines through ``StoreEffects``; the store owns it and times nothing itself.
///
/// - The **resync** (the daemon went away and came back): what is not reported again goes at the grace period's end
///   (``StoreEffects/resyncDeadline``), unless the daemon said it reported all it knows first; address records not
///   reported again get more periods, two at least (the daemon flushes records while it fills its cache again) and up
///   to ``maximumAddressResyncRounds`` (a daemon that comes back to a large LAN takes a while to ask every host
///   again).
/// - A **withdrawal** (a link went down: the daemon withdrew what it learnt there): what was learnt there is kept; a
///   link that is back gets rounds of the grace period to be learnt again (two at least, up to
///   ``maximumWithdrawalRounds``); a link still down at its deadline loses its devices.
struct ResyncSchedule: Sendable {
    /// The grace periods address records not reported again are kept through after a resync; a record removed
    /// during the first ``minimumAddressResyncRounds`` is kept until their end, even if every record had been
    /// reported again (avahi-daemon, its cache filled again, still flushed a host's address 10 and 18 s after it came
    /// back, and had it again within seconds).
    static let minimumAddressResyncRounds = 2
    static let maximumAddressResyncRounds = 6
    /// The most grace periods a withdrawn link that is back is given while it is still being learnt again (a link
    /// that flaps on and on must not keep what it had forever).
    static let maximumWithdrawalRounds = 12

    private struct Withdrawal: Sendable {
        var generation: Int
        var rounds = 0
        /// The rounds it had had when its link came back; nil while the link is down.
        var roundsAtReturn: Int?
        var removed = 0

        var hasReturned: Bool { roundsAtReturn != nil }
        var roundsSinceReturn: Int { roundsAtReturn.map { rounds - $0 } ?? 0 }
    }

    /// The current resync's generation: a deadline of an earlier one is stale.
    private(set) var generation = 0
    /// The grace periods the address records of the current resync have had.
    private var addressRounds = 0
    /// The interfaces withdrawn and not finished yet.
    private var withdrawals: [String: Withdrawal] = [:]
    private var withdrawalGeneration = 0

    /// The source's daemon changed state: one that went away starts a resync (devices are kept through the outage),
    /// one that is back arms the resync's deadline.
    mutating func sourceStateChanged(
        isRunning: Bool,
        wasRunning: Bool,
        table: inout MDNSHostTable,
        effects: inout StoreEffects
    ) {
        if !isRunning { table.sourceWentAway() }
        if !isRunning && (wasRunning || !table.isResyncing) && table.deviceCount > 0 {
            // A new outage during a resync starts it over: the daemon that comes back reports nothing about the old
            // one. The resync covers the interfaces withdrawn before.
            table.beginResync()
            withdrawals = [:]
            generation += 1
            addressRounds = 0
        }
        if isRunning && !wasRunning && table.isResyncing {
            effects.resyncDeadline = generation
        }
    }

    /// The source reported everything it knows: the resync ends for the service types seen again.
    mutating func browsingSettled(table: inout MDNSHostTable, effects: inout StoreEffects) {
        guard table.isResyncing else { return }
        table.finishResyncOfTypesSeenAgain()
        if !table.isResyncing { effects.logs.append(LogEntry(.avahiResyncFinished, ["reason": "all-for-now"])) }
    }

    /// A resync's grace period is over (`isRunning`: whether the source's daemon is running now).
    mutating func resyncDeadline(
        generation: Int,
        isRunning: Bool,
        table: inout MDNSHostTable,
        effects: inout StoreEffects
    ) {
        guard generation == self.generation && isRunning else { return }
        if table.isResyncing {
            effects.logs.append(LogEntry(.avahiResyncFinished, ["reason": "grace-period"]))
            table.finishResync()
        }
        addressRounds += 1
        let final = addressRounds >= Self.maximumAddressResyncRounds
        let early = addressRounds < Self.minimumAddressResyncRounds && table.isResyncingAddresses
        if early || table.finishAddressResync(final: final) > 0 {
            effects.resyncDeadline = generation
        } else if addressRounds > Self.minimumAddressResyncRounds {
            effects.logs.append(LogEntry(.avahiAddressResyncFinished, ["rounds": "\(addressRounds)"]))
        }
    }

    /// The daemon withdrew what it learnt on `interface`.
    mutating func interfaceWithdrawn(_ interface: String, table: inout MDNSHostTable, effects: inout StoreEffects) {
        table.apply(.interfaceWithdrawn(interface))
        effects.logs.append(
            LogEntry(.interfaceWithdrawn, ["interface": interface, "devices": "\(table.deviceCount(on: interface))"])
        )
        withdrawals[interface] = Withdrawal(generation: 0)
        armWithdrawalDeadline(interface, effects: &effects)
    }

    /// The daemon reports from `interface` again: the grace counts from the link's return.
    mutating func interfaceReturned(_ interface: String, table: inout MDNSHostTable, effects: inout StoreEffects) {
        table.apply(.interfaceReturned(interface))
        guard let withdrawal = withdrawals[interface], !withdrawal.hasReturned else { return }
        effects.logs.append(LogEntry(.interfaceReturned, ["interface": interface]))
        withdrawals[interface]?.roundsAtReturn = withdrawal.rounds
        armWithdrawalDeadline(interface, effects: &effects)
    }

    /// A withdrawal's grace period is over.
    mutating func withdrawalDeadline(
        interface: String,
        generation: Int,
        table: inout MDNSHostTable,
        effects: inout StoreEffects
    ) {
        guard var withdrawal = withdrawals[interface], withdrawal.generation == generation else { return }
        withdrawal.rounds += 1
        // A link still down gets nothing back; one that is back gets rounds to be learnt again, two at least (the
        // daemon flushes records while it fills its cache of the link again, as after a restart).
        let final = !withdrawal.hasReturned || withdrawal.rounds >= Self.maximumWithdrawalRounds
        if !final && withdrawal.roundsSinceReturn < 2 {
            withdrawals[interface] = withdrawal
            armWithdrawalDeadline(interface, effects: &effects)
            return
        }
        let (devices, waiting) = table.finishWithdrawal(of: interface, final: final)
        withdrawal.removed += devices
        withdrawals[interface] = withdrawal
        if waiting > 0 {
            armWithdrawalDeadline(interface, effects: &effects)
        } else {
            withdrawals[interface] = nil
            effects.logs.append(
                LogEntry(
                    .interfaceResyncFinished,
                    ["interface": interface, "removed": "\(withdrawal.removed)", "rounds": "\(withdrawal.rounds)"]
                )
            )
        }
    }

    /// Scanning was switched off: nothing is withdrawn any more.
    mutating func reset() {
        withdrawals = [:]
    }

    /// Asks for the deadline of an interface's withdrawal, replacing the one it waited for.
    private mutating func armWithdrawalDeadline(_ interface: String, effects: inout StoreEffects) {
        withdrawalGeneration += 1
        withdrawals[interface]?.generation = withdrawalGeneration
        effects.withdrawalDeadlines[interface] = withdrawalGeneration
    }
}
