// The resync after the discovery daemon came back: instances and address records not reported again go, the rest
// stay.

import Discovery

extension MDNSHostTable {
    /// Marks every instance unconfirmed; instances seen or resolved again before ``finishResync()`` are kept.
    public mutating func beginResync() {
        forgetWithdrawals()  // the daemon that comes back reports every interface anew: the resync covers them
        unconfirmed = Set(rows.keys)
        for (host, records) in addressRecords { unconfirmedAddressRecords[host, default: []].formUnion(records) }
        hostsResyncingAddresses = Set(addressRecords.keys)
        typesSeenAgain = []
        isResyncing = true
    }

    /// Removes the unconfirmed instances of the service types seen again since ``beginResync()``: their browsers
    /// have reported, so an instance still unconfirmed is gone. Instances of types not seen again stay until
    /// ``finishResync()``. The resync ends when no unconfirmed instance is left.
    public mutating func finishResyncOfTypesSeenAgain() {
        for key in unconfirmed where typesSeenAgain.contains(key.type) { remove(key) }
        if unconfirmed.isEmpty { finishResync() }
    }

    /// Removes every instance that was not seen or resolved again since ``beginResync()``.
    public mutating func finishResync() {
        for key in unconfirmed { remove(key) }
        unconfirmed = []
        typesSeenAgain = []
        isResyncing = false
    }

    /// Whether the address records of a resync are still being reported again (removals only unconfirm them).
    var isResyncingAddresses: Bool { !hostsResyncingAddresses.isEmpty }

    /// Drops the address records not reported again since ``beginResync()``, and those removed meanwhile and not
    /// reported again since — in the last round.
    ///
    /// Later than the rows: a host's records are only followed again once one of its rows has resolved again, against
    /// a daemon whose cache may be empty (and flushes records while it fills again). And a daemon that comes back to
    /// a large LAN asks every host again, which takes it a while (on the test LAN, 520 hosts: ~27 s until the last
    /// answered, some hosts over 40 s), and a host's records come back piecemeal (an answer carrying one of its
    /// addresses is no sign that the others are gone: dropping them then, they came back seconds later). So the
    /// earlier rounds only tell whether any record still waits; the last one drops what never came back.
    ///
    /// - Parameter final: Drop every record not reported again (the last round).
    /// - Returns: How many hosts still wait for records to be reported again.
    /// - Complexity: O(u) for u unconfirmed records.
    @discardableResult
    public mutating func finishAddressResync(final: Bool = true) -> Int {
        guard final else {
            if unconfirmedAddressRecords.isEmpty { hostsResyncingAddresses = [] }
            return unconfirmedAddressRecords.count
        }
        for (host, records) in unconfirmedAddressRecords where !records.isEmpty {
            addressRecords[host]?.subtract(records)
            changedHosts.insert(host)
        }
        unconfirmedAddressRecords = [:]
        hostsResyncingAddresses = []
        return 0
    }
}
