import Discovery

/// Whether peerscand's first browse after start has settled — clients wait for it, so that their first snapshot does
/// not lack devices merely not rediscovered yet — and whether devices known only by a MAC address are held back
/// meanwhile (an mDNS host may still claim their MAC address: one published early would be a false `new device`).
///
/// A pure value on the store's clock (times are passed in). The browse settles once the source reported all it knows
/// while running, the host table has nothing pending, and nothing new was found for ``quietPeriod`` (a large LAN is
/// reported for a good while after the source's all-for-now) — or at the owner's time limit, or when scanning is
/// switched off. A source whose daemon is not there (``sourceDown(now:)``: connecting to it, unavailable, failed)
/// browses nothing: then the gate waits only until the neighbour table's answers were quiet for ``quietPeriod``, and
/// again for the browse if the daemon comes up meanwhile. After scanning is switched on again, neighbour-only devices
/// are held for ``neighbourHold`` at most.
struct InitialBrowseGate: Sendable {
    /// How long nothing new must have been found before the browse counts as settled.
    let quietPeriod: Duration
    /// The longest neighbour-only devices are held after scanning is switched on.
    static let neighbourHold = Duration.seconds(5)

    /// Whether the first browse has settled (or was never waited for).
    private(set) var isSettled: Bool
    private var hasBrowsingSettled = false
    /// The source's daemon is not there: no browse is coming (until it runs).
    private var isSourceDown = false
    private var lastFound: Duration?
    /// The reason it settled, until the owner announced it (``takeSettledReason()``).
    private var pendingAnnouncement: String?
    /// Neighbour-only devices are held until then, after scanning was switched on.
    private var neighbourHoldUntil: Duration?
    private var hasBrowsingSettledSinceScanningOn = false

    /// A gate that waits (`waits` and scanning on at start) or is open from the start.
    init(waits: Bool, isScanning: Bool, quietPeriod: Duration) {
        self.isSettled = !waits || !isScanning
        self.quietPeriod = quietPeriod
    }

    /// Whether devices known only by a MAC address are held back now.
    var holdsNeighbourOnlyDevices: Bool { !isSettled || neighbourHoldUntil != nil }

    /// Something new was found (a row, a resolution, an address).
    mutating func noteFound(now: Duration) {
        if !isSettled { lastFound = now }
    }

    /// The kernel answered for an address (a neighbour entry with a MAC address): counts as something new found
    /// while the source is down, when these answers are all there is to wait for.
    mutating func noteNeighbourAnswer(now: Duration) {
        if !isSettled && isSourceDown { lastFound = now }
    }

    /// The source reported that its daemon is not there (`now`): no browse will come, so the gate waits only for the
    /// neighbour table's answers to be quiet for ``quietPeriod`` from now. Nothing changes once the browse settled.
    mutating func sourceDown(now: Duration) {
        guard !isSettled, !isSourceDown, !hasBrowsingSettled else { return }
        isSourceDown = true
        lastFound = now
    }

    /// The source's daemon runs: a gate that stopped waiting for its browse waits for it again.
    mutating func sourceRunning() {
        guard isSourceDown else { return }
        isSourceDown = false
    }

    /// The source reported all it knows (`isRunning`: its daemon is running).
    mutating func browsingSettled(isRunning: Bool, isScanning: Bool) {
        if isRunning { hasBrowsingSettled = true }
        if isRunning && isScanning { hasBrowsingSettledSinceScanningOn = true }
    }

    /// Scanning was switched on (hold neighbour-only devices for a while) or off.
    mutating func scanningSwitched(on: Bool, now: Duration) {
        if on {
            neighbourHoldUntil = now + Self.neighbourHold
            hasBrowsingSettledSinceScanningOn = false
        } else {
            neighbourHoldUntil = nil
        }
    }

    /// Ends the wait (the time limit, scanning off): the owner announces it once its batch is published.
    mutating func settle(reason: String) {
        guard !isSettled else { return }
        isSettled = true
        pendingAnnouncement = reason
    }

    /// Ends the hold of neighbour-only devices after scanning was switched on, once its time is up, the source is not
    /// running, or the source has reported all it knows and the host table has nothing pending.
    mutating func releaseNeighbourHoldIfDue(now: Duration, isRunning: Bool, isTableSettled: Bool) {
        guard let until = neighbourHoldUntil else { return }
        if now >= until || !isRunning || (hasBrowsingSettledSinceScanningOn && isTableSettled) {
            neighbourHoldUntil = nil
        }
    }

    /// What to do after a batch: whether the browse settles now, else how long until it may (`nil`: not yet known).
    enum Verdict: Equatable {
        case settled
        case checkAfter(Duration)
        case waiting
    }

    /// Settles the browse if its conditions hold now.
    mutating func evaluate(now: Duration, isTableSettled: Bool) -> Verdict {
        guard !isSettled && (hasBrowsingSettled || isSourceDown) && isTableSettled else { return .waiting }
        let quietFor = lastFound.map { now - $0 } ?? quietPeriod
        guard quietFor >= quietPeriod else { return .checkAfter(quietPeriod - quietFor) }
        settle(reason: isSourceDown ? "source-down" : "all-for-now")
        return .settled
    }

    /// The reason the browse settled, once: the owner logs it and tells its waiters.
    mutating func takeSettledReason() -> String? {
        defer { pendingAnnouncement = nil }
        return pendingAnnouncement
    }
}
